// The GPU path's rules for FP8 tensors (e4m3, e5m2), each refusal located and naming the rule.
//
// FP8 tensor cores on the GPU path are wgmma's .e4m3/.e5m2 forms on sm_90a: one plain GEMM
// whose A and B are both FP8 and both K-major (A(m, k), B(n, k)), loaded by TMA into the TMA +
// wgmma main loop (codegen/hopper_gemm_kernel.h), with the pointwise epilogues of that kernel.
// Everything else with an FP8 tensor is refused: other architectures (sm_80/sm_86 mma.sync has
// no FP8 form; sm_89's FP8 mma.sync is not built), operands that are not K-major (no
// transposing copy yet), FP8 x 16-bit operands, FP8 tensors read elsewhere than as A and B
// (prologues, epilogue operands), programs of several kernels, and shapes the TMA main loop
// cannot load (rows not a multiple of 16 bytes: K a multiple of 16). The CPU target and the
// reference run every FP8 program (decoded exactly to f32).
#pragma once

#include <string>

#include "frontend/program.h"
#include "polyfuse/gpu_target.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// Throws UserError at the declaration of the first FP8 tensor of `program`, saying `why` the
// GPU path does not run it; returns when there is none.
void refuse_fp8_on_gpu(const Program& program, const std::string& why);

// The rules for the one fused kernel `plan` of `program` on `arch`: returns when `program` has
// no FP8 tensor or the FP8 GEMM is one the sm_90a TMA + wgmma main loop runs (its loading by TMA
// is checked by refuse_fp8_fallback once the main loop is chosen); else throws UserError.
void check_fp8_gemm(const Program& program, const KernelPlan& plan, Arch arch);

// Throws UserError when `program` has an FP8 tensor: the TMA + wgmma main loop was not chosen
// for it (`fallback_reason`), and no other main loop reads FP8.
void refuse_fp8_fallback(const Program& program, const std::string& fallback_reason);

}  // namespace polyfuse
