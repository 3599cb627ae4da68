// Making a CompiledKernel from a generated source and its launch metadata — what
// TensorProgram::compile does after code generation, and what a caller that already has
// an EmittedKernel (the CLI, tests with hand-written kernels) uses directly.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "codegen/launch_metadata.h"
#include "polyfuse/compiled_kernel.h"
#include "polyfuse/options.h"

namespace polyfuse::api {

// Builds a kernel for `backend`: NVRTC through the cache for metadata.arch (cuda), or a
// host build for the emulator (emu). `bound_sizes` are the sizes fixed at generation
// (used to check and size launch arguments). Throws CompileError.
CompiledKernel make_compiled_kernel(Backend backend, std::string source, LaunchMetadata metadata,
                                    std::map<std::string, std::int64_t> bound_sizes, const CompileOptions& options);

}  // namespace polyfuse::api
