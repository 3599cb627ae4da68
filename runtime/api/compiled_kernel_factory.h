// Making a CompiledKernel from a generated source and its launch metadata — what
// TensorProgram::compile does after code generation, and what a caller that already has
// an EmittedKernel (the CLI, tests with hand-written kernels) uses directly.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "codegen/launch_metadata.h"
#include "polyfuse/compiled_kernel.h"
#include "polyfuse/options.h"

namespace polyfuse::api {

// Builds a kernel for `backend`: NVRTC through the cache for metadata.arch (cuda), or a
// host build for the emulator (emu). `bound_sizes` are the sizes fixed at generation
// (used to check and size launch arguments). Throws CompileError.
CompiledKernel make_compiled_kernel(Backend backend, std::string source, LaunchMetadata metadata,
                                    std::map<std::string, std::int64_t> bound_sizes, const CompileOptions& options);

// The kernels `metadata` (one entry each, in launch order) of one `source` (a plan's: cuda_plan.h),
// built once: one emulator module, or one NVRTC compilation per kernel through the cache.
std::vector<CompiledKernel> make_compiled_kernels(Backend backend, const std::string& source,
                                                  const std::vector<LaunchMetadata>& metadata,
                                                  const std::map<std::string, std::int64_t>& bound_sizes,
                                                  const CompileOptions& options);

}  // namespace polyfuse::api
