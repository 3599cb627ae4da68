// The sm_90a TMA + wgmma kernel of a plain GEMM as an emitted kernel: its launch metadata (the
// operands that reach it as tensor maps and their boxes, the persistent grid, the cluster), the
// file's header comment and the kernel text of hopper_gemm_kernel.h. Called by emit_cuda
// (cuda_emitter.h) when the main-loop choice is MainLoop::tma_wgmma.
#pragma once

#include "codegen/cuda_emitter.h"
#include "codegen/hopper_gemm_kernel.h"
#include "codegen/main_loop_choice.h"
#include "frontend/program.h"
#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// A and B reach the kernel as tensor maps the runtime encodes; no host launcher (it would have
// to encode them).
// With `gather` (an implicit GEMM, codegen/hopper_implicit_gemm.h) A is gathered by the producer's
// threads (hopper_gemm_kernel.h's HopperGather); `note` (comment lines) follows the header's main
// loop line.
EmittedKernel emit_hopper_gemm(const Program& program, const KernelPlan& plan, const GpuOptions& o,
                               const MainLoopChoice& choice, CudaEmitRequest::Helpers helpers,
                               const HopperGather* gather = nullptr, const std::string& note = "");

}  // namespace polyfuse
