// Folding a matmul stage's batch indices into its rows (m): a 1x1 convolution
// O(n, h, w, k) +=! I(n, h, w, c) * F(k, c) is the matmul idiom with batch indices (n, h)
// and m = w, a BRGEMM of W rows per (n, h); when every access that follows m also follows h
// in the dimension just outside m's, with m's whole extent inside it (so h's stride is m's
// stride times m's extent), and nothing else reads h, then (h, w) is one index of H * W rows
// at m's stride, and the stage one GEMM with M = H * W; the same again for n gives
// M = N * H * W. Read off the accesses' dimensions and the tensors' shapes, not names.
//
// An index is not folded when an operand varies with it but not with m (B(n, k, j) of a
// batched GEMM, a per-row value v(n, h) of an epilogue), or an access follows m without it
// there (A shared across the batch, a transposed or padded layout). Convolution mains
// (BRGEMM over filter taps) keep their own addressing and are not folded.
#pragma once

#include "schedule/cpu_plan.h"

namespace polyfuse {

// Folds, innermost first, every batch index of every matmul stage of `plan` that the rule
// above allows into m (its accesses then mark it CpuDim::folded; the stage's m_name joins
// the names, "n_h_w"). Returns the number of indices folded.
int fold_batch_into_m(CpuPlan& plan);

}  // namespace polyfuse
