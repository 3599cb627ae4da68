// Transcendental terms of row reductions computed on vectors on the CPU target. A
// cross-entropy's (a log-sum-exp's)
//   s(m) +=! exp(X(m, n) - mx(m))
// is a loop nest whose terms call the scalar exponential one element at a time (kernels/cpu's
// apply, out of line: 2.4 ms of a 1024 x 1024 cross-entropy on one AVX-512 core; an entropy's
// -P log P 2.45 ms, 0.30 outlined). Computed
// first into a temporary by a pointwise statement
//   S1_exp(m, n) = exp(X(m, n) - mx(m))
//   s(m) +=! S1_exp(m, n)
// the exponential runs on kernels/cpu's 16-lane code (a Binary's post, as softmax's e) and the
// sum on reduce_row; the temporary joins the row chain (schedule/cpu_row_chains.h), so it is a
// block of rows per thread, read back from L2.
//
// A reduction S is rewritten when
//   - it is a loop nest (frontend/idioms.h: neither a matmul nor a batch-reduce matmul, whose
//     terms stay the BRGEMM's), a sum, max or min over one reduction index r, the last of its
//     indices, computed in f32, over its whole box (no `where` condition on its domain);
//   - a call of exp, tanh, sigmoid, silu, gelu, gelu_tanh, log, sqrt or rsqrt (the functions
//     with vector code, but abs: as cheap as a read) in its right-hand side depends on r (reads an element at r), and its argument is arithmetic (reads,
//     literals, + - * /, negation, calls: no `?:`, index value or comparison) over plain reads
//     (no boundary value, no gather) whose last subscript is r (rows, not columns, streamed).
// Each outermost such call becomes a temporary of its own (f32, S's indices in order, named
// S_function, with `_` appended while the name is taken: a KL divergence's two logs are S0_log
// and S0_log_); the values are
// the vector code's (within its documented error of the scalar function: kernels/cpu's
// vector_math.h), not the scalar function's.
#pragma once

#include "frontend/program.h"

namespace polyfuse {

// `program` with each such term computed by a statement of its own before its reduction.
Program outline_transcendental_terms(const Program& program);

}  // namespace polyfuse
