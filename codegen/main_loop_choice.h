// Which main loop a GPU kernel gets (issue 17): on sm_90a, TMA + wgmma where the Hopper path
// handles the kernel and TMA can load its operands, the sm_80 mma.sync main loop otherwise.
// The choice is made at compile time from the bound sizes; the kernel's header comment names
// it and, for a fallback, the reason.
//
//   MainLoopChoice choice = choose_main_loop(program, plan, options);
//   // K = 129, row-major f16 A: mma_sync, "TMA cannot load A: globalStrides[0] = 258 ..."
#pragma once

#include <string>

#include "frontend/program.h"
#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

enum class MainLoop {
  mma_sync,   // cp.async into shared memory, ldmatrix, mma.sync (sm_80 and newer)
  tma_wgmma,  // TMA into an S-stage ring on mbarriers, wgmma from shared memory (sm_90a)
};

// "mma.sync" / "TMA + wgmma".
const char* to_string(MainLoop loop);

struct MainLoopChoice {
  MainLoop loop = MainLoop::mma_sync;
  // Why the Hopper main loop was not taken on sm_90a ("" when it was, or for other targets).
  std::string fallback_reason;
};

// The main loop of the kernel of `plan`. TMA + wgmma needs: an arch with wgmma; one plain
// matmul (no batch, epilogue or prologue, `+=!`); f16 or bf16 operands, A(m, k) and B(k, n)
// row-major; bound sizes; and tensor maps of A and B that cuTensorMapEncodeTiled accepts
// (runtime/tma/tensor_map_rules.h: 16-byte row strides, boxes of 64 x 64 with 128-byte swizzle).
MainLoopChoice choose_main_loop(const Program& program, const KernelPlan& plan, const GpuOptions& options);

// The header comment line of a kernel for `arch`: "" for targets without wgmma, else
// "// Main loop: mma.sync, the sm_80 path (<reason>).\n" or the TMA + wgmma line.
std::string main_loop_comment(const MainLoopChoice& choice, Arch arch);

}  // namespace polyfuse
