// The compile half of the driver (its run/check half is run_program.h): .tc text → checked
// defs → the selected def → CUDA source and launch metadata. The runtime API meets the
// compiler only here (the compiler's IR class is also called polyfuse::Program), and every
// compiler exception is turned into a public polyfuse::Error here; the command line uses
// select_def for the same def lookup.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <optional>

#include "codegen/cuda_plan.h"
#include "codegen/launch_metadata.h"
#include "frontend/frontend.h"
#include "polyfuse/options.h"
#include "runtime/api/compiled_kernel_factory.h"

namespace polyfuse::api {

using Sizes = std::map<std::string, std::int64_t>;

// What a source holds: its defs in order.
struct SourceSummary {
  std::vector<std::string> defs;
};

// The def named `def` of `result` ("" = the first), read from `source_name`. Throws
// UserError naming the def and the file's defs: "`def` nope: gemm.tc has no def of that
// name (it has: gemm)".
const polyfuse::Program& select_def(const FrontendResult& result, const std::string& def, const std::string& source_name);

// Parses and checks `text` with `sizes` bound (sizes used as values may stay unbound: their
// defs are checked when they are bound). Throws SourceError.
SourceSummary summarize_source(const std::string& text, const std::string& name, const Sizes& sizes);

// The sizes of `def` ("" = the first) still unbound with `sizes`. Throws SourceError.
std::vector<std::string> unbound_sizes(const std::string& text, const std::string& name, const Sizes& sizes,
                                       const std::string& def);

// The parameters of `def` ("" = the first) with `sizes` bound (cuda_emitter.h's
// kernel_parameters; from the declarations while a size used as a value is unbound).
// Throws SourceError.
std::vector<KernelParameter> def_parameters(const std::string& text, const std::string& name, const Sizes& sizes,
                                            const std::string& def);

// A generated kernel, or the kernels of a plan.
struct GeneratedKernel {
  std::string source;
  LaunchMetadata metadata;        // one kernel's (unset for a plan)
  std::string plan_text;          // --emit=plan
  std::optional<PlanParts> plan;  // a def that is not one fused kernel
};

// The CPU target's C++ of `def` ("" = the first; every size bound) and the signature of its
// entry point (kernel: cpu_entry_name, grid and block 1). `options` must hold no GPU option
// (backend cpu). Throws SourceError.
GeneratedKernel generate_cpu(const std::string& text, const std::string& name, const Sizes& sizes,
                             const std::string& def, const CompileOptions& options);

// The parts of `emitted`, the CUDA of `plan` of `program` (every size bound).
PlanParts plan_parts(const polyfuse::Program& program, const ProgramPlan& plan, const EmittedPlan& emitted);

// Generates the CUDA kernel of `def` ("" = the first def), or its plan's kernels, with the
// architecture and tile choices of `options` (unset arch: default_arch()). Throws
// SourceError (program, options), Error (internal).
GeneratedKernel generate_cuda(const std::string& text, const std::string& name, const Sizes& sizes,
                              const std::string& def, const CompileOptions& options);

// Bytes of one element of `metadata`'s tensor parameter `index`.
int element_bytes(const LaunchMetadata& metadata, std::size_t index);

}  // namespace polyfuse::api
