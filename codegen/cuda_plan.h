// The CUDA source of a plan of several kernels (schedule/program_plan.h): the helpers once,
// every kernel in launch order — fused matmul kernels from cuda_emitter.h (each with its own
// host launcher), memory-bound kernels from cuda_memory_kernel.h — and a host launcher
// `polyfuse_launch_<def>(inputs..., outputs..., void* workspace, cudaStream_t)` that runs
// them in order on the stream, the temporaries at their offsets in `workspace` (which must
// hold ProgramPlan::workspace_bytes, 256-byte aligned).
//
// A def that is one fused kernel never comes here: emit_cuda's source is unchanged.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "codegen/cuda_emitter.h"
#include "codegen/launch_metadata.h"
#include "frontend/program.h"
#include "schedule/program_plan.h"

namespace polyfuse {

struct EmittedPlan {
  std::string source;                   // the whole .cu text
  std::vector<LaunchMetadata> kernels;  // launch order; parameters name def tensors or temporaries
  // The plan's entry of the JSON sidecar (after its kernels'): {"plan": def, "launcher",
  // "kernels": names in launch order, "workspace_bytes", "temporaries": [{"name", "offset",
  // "bytes"}]}.
  nlohmann::json sidecar;
};

// The source of `plan` (more than one kernel) of `program` with `request`'s options; the
// helpers as `request.helpers` says, before the first kernel.
EmittedPlan emit_cuda_plan(const Program& program, const ProgramPlan& plan, const CudaEmitRequest& request);

}  // namespace polyfuse
