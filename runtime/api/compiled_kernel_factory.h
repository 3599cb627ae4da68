// Making a CompiledKernel from a generated source and its launch metadata — what
// TensorProgram::compile does after code generation, and what a caller that already has
// an EmittedKernel (the CLI, tests with hand-written kernels) uses directly.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/launch_metadata.h"
#include "polyfuse/compiled_kernel.h"
#include "polyfuse/options.h"
#include "schedule/program_plan.h"

namespace polyfuse::api {

// The public form of one kernel parameter.
ParameterInfo parameter_info(const KernelParameter& parameter);

// Builds a kernel for `backend`: NVRTC through the cache for metadata.arch (cuda), or a
// host build for the emulator (emu). `bound_sizes` are the sizes fixed at generation
// (used to check and size launch arguments). Throws CompileError.
// `plan_text` is what plan() returns (`--emit=plan`).
CompiledKernel make_compiled_kernel(Backend backend, std::string source, LaunchMetadata metadata,
                                    std::map<std::string, std::int64_t> bound_sizes, const CompileOptions& options,
                                    std::string plan_text = "");

// The CPU target's C++ `source` (codegen/cpu_emit.h) built and loaded (runtime/cpu):
// `signature` names its entry point (cpu_entry_name) and lists the def's tensors. Throws
// CompileError.
CompiledKernel make_compiled_cpu(const std::string& source, LaunchMetadata signature,
                                 std::map<std::string, std::int64_t> bound_sizes);

// What a plan of several kernels is made of, besides its source (codegen/cuda_plan.h).
struct PlanParts {
  LaunchMetadata signature;             // the def's tensors in signature order, named after the launcher
  std::vector<LaunchMetadata> kernels;  // launch order
  std::vector<PlanTemporary> temporaries;
  std::int64_t workspace_bytes = 0;
  std::string text;                     // --emit=plan
  nlohmann::json sidecar;               // the plan's entry of the sidecar
};

// A plan compiled as one CompiledKernel: its kernels built from `source` (make_compiled_kernels),
// launched in order by CompiledKernel::launch. Throws CompileError.
CompiledKernel make_compiled_plan(Backend backend, const std::string& source, PlanParts parts,
                                  std::map<std::string, std::int64_t> bound_sizes, const CompileOptions& options);

// The kernels `metadata` (one entry each, in launch order) of one `source` (a plan's: cuda_plan.h),
// built once: one emulator module, or one NVRTC compilation per kernel through the cache.
std::vector<CompiledKernel> make_compiled_kernels(Backend backend, const std::string& source,
                                                  const std::vector<LaunchMetadata>& metadata,
                                                  const std::map<std::string, std::int64_t>& bound_sizes,
                                                  const CompileOptions& options);

}  // namespace polyfuse::api
