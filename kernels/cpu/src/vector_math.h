// Internal: the transcendental unary ops (exp, tanh, sigmoid, silu, gelu, gelu_tanh, log) and
// sqrt, rsqrt (1 / sqrt), abs (exact IEEE operations: the scalar bits) on whole vectors, for
// contiguous f32 rows. x86-64 with AVX2 + FMA: exp, erf and log are vector_exp.h's,
// vector_erf.h's and vector_log.h's (polynomials, the same bits on 8 and 16 lanes); tanh glibc's libmvec (_ZGVdN8v_tanhf, 8 lanes;
// _ZGVeN16v_tanhf, 16); composed exactly as the scalar definitions in elementwise.cc compose
// expf, tanhf and erff (same operations, same order, no contraction); elsewhere, or under
// POLYFUSE_CPU_ISA=generic, nothing is vectorised.
//
// Accuracy (tests/kernels_cpu/vector_math_test.cc sweeps every 61st f32 bit pattern against
// f64 libm, and holds these bounds, u = 2^-24): erf within 1.2 u absolute, tanhf within 1.2 u
// relative, exp and log within 1.4 u relative: inside the reference check's model of a function's
// implementation (runtime/reference/error_bound.h: 4 u for exp, tanh and log, 4 u absolute for erf
// in gelu_erf), so the check's bounds hold unchanged. (libmvec's AVX-512 erff errs by 4.0 u: at
// the model's limit, and not used.)
// Every element of a row goes through the same vector code (the tail is padded), so a value
// never depends on where a block or a row starts: results are identical for any blocking and
// any thread count.
#pragma once

#include <cstdint>

#include "polyfuse/cpu/elementwise.h"
#include "polyfuse/cpu/isa.h"

namespace polyfuse::cpu::detail {

// Whether `op` has a vector path on `isa` (the caller's best_isa(): CPU, build and
// POLYFUSE_CPU_ISA cap, as the caller saw them).
bool vector_unary_available(Isa isa, UnaryOp op);

// y[i] = op(x[i]) for i < n; x == y allowed. Only where vector_unary_available(isa, op). With `isa`
// avx512 (the caller's best_isa(), so POLYFUSE_CPU_ISA=avx2 keeps 8 lanes) exp, sigmoid, silu,
// tanh, log, sqrt, rsqrt and abs run 16 lanes wide (vector_math_avx512.cc); with avx2 8 lanes; with
// generic the scalar definition (apply). With `count` > 1: that many rows of n elements, `ld`
// apart (in x and y), in one call.
void vector_unary(Isa isa, UnaryOp op, const float* x, float* y, int64_t n, int64_t count = 1, int64_t ld = 0);

// The 16-lane path of vector_unary: false (nothing done) for an op it does not take, and
// everywhere but x86-64 builds with AVX-512.
bool vector_unary_avx512(UnaryOp op, const float* x, float* y, int64_t n, int64_t count = 1, int64_t ld = 0);

// y[i] = post(a[i a_step] op b[i b_step]) for i < n (steps 1, or 0: a broadcast value), the
// operation and post on 16 lanes in one pass, with the bits of op's scalar lambda and then
// vector_unary's post: false (nothing done) where it does not take op (max, min) or post, and
// everywhere but x86-64 builds with AVX-512. (Binary's post on AVX-512: no store and reload
// of the row between the two.)
bool vector_binary_unary_avx512(BinaryOp op, UnaryOp post, const float* a, int64_t a_step, const float* b,
                                int64_t b_step, float* y, int64_t n);

// z[i] = op(z[i]) for i < n (op not zero): relu as x > 0 ? x : 0, the vector path of `isa` where
// there is one, else the scalar definition. What Binary's post and the BRGEMM's epilogue apply (on
// a tile: `count` columns of n elements, `ld` apart).
void unary_in_place(Isa isa, UnaryOp op, float* z, int64_t n, int64_t count = 1, int64_t ld = 0);

}  // namespace polyfuse::cpu::detail
