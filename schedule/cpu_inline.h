// Cheap temporaries inlined into their readers on the CPU target. A layer norm's
//   d(m, n) = X(m, n) - mean(m)
//   var(m) +=! d(m, n) * d(m, n) / N
//   Y(m, n) = d(m, n) * rsqrt(var(m) + 1e-5) * gamma(n) + beta(n)
// stored d (a pass writing it, two reading it back) to save one subtraction an element; with
// X - mean computed where d is read, the row chain (schedule/cpu_row_chains.h) has a pass
// less, and the same bits: d is f32, so its stored value is the value computed.
//
// A temporary T is inlined when
//   - one statement P writes it, an assignment over T's whole extent (T(i, j) = ..., its
//     indices P's own, in order), computed in f32, and T is f32;
//   - P's right-hand side is cheap (at most 5 nodes: reads, literals, + - * / and negation; no
//     call, `?:` or index value) and reads plain elements (`mean(i)`, not `X(i + 1)`, no
//     boundary value, no gather) of f32 tensors (no widening where it is read) that no matmul
//     writes (P may be the matmul's epilogue, fused into its BRGEMM's store: GEMM + bias +
//     layer norm's `X = C + bias` stays; measured, 17% slower at 512 inlined);
//   - every read of T is a plain one, at most 4 in all, by statements after P that compute in
//     f32, do not write what P reads, gather nothing, and are not contractions (each reduction
//     index of a reader appears in the reads of T alone: a matmul's operand stays a tensor);
//   - no statement between P and a reader writes what P reads.
// Then each read of T becomes P's expression at the read's element (P's indices renamed to the
// read's, the accesses' relations composed), and P and T are gone.
#pragma once

#include "frontend/program.h"

namespace polyfuse {

// `program` with its cheap temporaries inlined (the rule above), else `program` itself.
Program inline_cheap_temporaries(const Program& program);

}  // namespace polyfuse
