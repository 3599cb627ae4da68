// The CUDA plan of a .tc file of the repository, as the CLI emits it (helpers included), for
// the codegen tests that check one plan's kernels and the options they refuse.
#pragma once

#include <string>

#include "codegen/cuda_plan.h"
#include "frontend/frontend.h"
#include "frontend/idioms.h"
#include "schedule/program_plan.h"
#include "support/golden.h"

namespace polyfuse::testing {

// `path` relative to the repository root (its name in diagnostics); the first def, `sizes` bound.
inline EmittedPlan emit_plan_of_file(const std::string& path, const SizeBindings& sizes, const GpuOptions& options) {
  SourceFile source = read_source_file(source_path(path));
  source.name = path;
  const Program program = compile_source(source, sizes).programs.at(0);
  CudaEmitRequest request;
  request.options = options;
  request.helpers = CudaEmitRequest::Helpers::include;
  return emit_cuda_plan(program, plan_program(program, recognize_idioms(program)), request);
}

}  // namespace polyfuse::testing
