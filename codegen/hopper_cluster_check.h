// Whether --cluster 2x1 / 1x2 (GpuOptions::cluster) can be honoured for a kernel: only by the
// sm_90a warp-specialised TMA + wgmma kernel (codegen/hopper_gemm_kernel.h), whose blocks of a
// cluster each load half of the shared tile and multicast it — so every operand must be loaded
// by TMA — and, not done yet, of one unbatched matmul.
#pragma once

#include "codegen/main_loop_choice.h"
#include "frontend/program.h"
#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// Throws UserError naming the option, the def, the arch and the reason when the kernel of `plan`
// (whose main loop is `choice`) cannot run in clusters of options.cluster.
void check_hopper_cluster(const Program& program, const KernelPlan& plan, const GpuOptions& options,
                          const MainLoopChoice& choice);

}  // namespace polyfuse
