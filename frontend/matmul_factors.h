// Factors of a matmul's terms that do not depend on the reduced index, applied after the sum.
// Attention's scores and output are written
//   L(s, t) +=! Q(s, d) * K(t, d) * 0.125
//   O(s, d) +=! e(s, t) * V(t, d) / z(s)
// whose terms are a matmul's product times (or divided by) a value constant along the sum: not
// a product of two operands, so not a matmul (frontend/idioms.h) — a loop nest on the CPU and one
// warp an element on the GPU. Such a sum is rewritten into the matmul and a pointwise statement
// after it, which the targets fuse as its epilogue:
//   L_sum(s, t) +=! Q(s, d) * K(t, d)        (an f32 temporary, the statement's id kept)
//   L(s, t) = L_sum(s, t) * 0.125            (id S<n>_scale)
// The same value in exact arithmetic (the reference check evaluates the rewritten program, whose
// error model is the one of the code that runs).
//
// A statement is rewritten when it is not a matmul as written (`(A(m, k) * 0.3) * B(k, n)` is one,
// with a prologue on A, and stays), a `+=!` sum over its whole box (no `where` condition on its
// domain) writing a plain access, its right-hand side is a chain of products and quotients whose
// divisors and at least one factor read no reduction index (literals, reads of the written
// indices only, functions of them), the remaining factors (in their order) make a matmul, a
// batch-reduce matmul or a contraction a GEMM computes (two tensors' plain reads, each summed
// index in both, free indices in both: schedule/contraction_to_gemm.h; attention's product on
// (B, S, H, D) tensors, `O(b, s, h, n) +=! e(b, h, s, t) * V(b, t, h, n) / z(b, h, s)`), and the
// written tensor is not read by it.
#pragma once

#include "frontend/program.h"

namespace polyfuse {

// `program` with every such sum split in two.
Program factor_matmul_scales(const Program& program);

}  // namespace polyfuse
