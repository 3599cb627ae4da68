// Kernel plans built by hand for the schedule pass tests (no front end involved).
#pragma once

#include "frontend/isl_context.h"
#include "schedule/kernel_plan.h"

namespace polyfuse::testing {

// C(m, n) +=! A(m, k) * B(k, n) with the given layouts ("row"/"col" for A and B), sizes
// M, N, K as parameters, statement S0.
KernelPlan gemm_plan(isl::ctx ctx, OperandLayout a = OperandLayout::row_major,
                     OperandLayout b = OperandLayout::row_major);

// D(m, n) = relu(C(m, n) + bias(n)) after the GEMM: S0 (matmul, C not live-out), S1.
KernelPlan gemm_epilogue_plan(isl::ctx ctx);

// SwiGLU's gate: S0 G +=! X * Wg and S1 U +=! X * Wu in one k-loop (S1 shares X's tile),
// then S2 H = silu(G) * U.
KernelPlan swiglu_plan(isl::ctx ctx);

// C(b, m, n) +=! A(b, m, k) * B(b, k, n).
KernelPlan batched_gemm_plan(isl::ctx ctx);
// C(b, h, m, n) +=! Q(b, h, m, k) * W(b, h, k, n): two batch dimensions (B x H).
KernelPlan multihead_batched_gemm_plan(isl::ctx ctx);

}  // namespace polyfuse::testing
