// Internal: the natural logarithm of the vector paths (vector_math.h), one template for 8 lanes
// (AVX2 + FMA) and 16 (AVX-512): the same operations lane by lane, so the same bits on either.
//
// x = 2^e m with m in [sqrt(1/2), sqrt(2)) (from the bits: subtract sqrt(1/2)'s, the exponent is
// what lies above the mantissa, m the rest put back on sqrt(1/2)'s bits; subnormal x scaled by
// 2^23 first, exactly); f = m - 1 (exact: m is within a factor of 2 of 1) and
// log x = e ln 2 + f - f^2 / 2 + f^3 P(f), P Cephes' logf polynomial, ln 2 in two parts (the
// first, 0.693359375, times e exact), the small terms first. The edges as std::log: +0 and -0
// give -infinity, a negative x NaN, +infinity itself, NaN NaN.
// Accuracy: within 1.37 u (u = 2^-24) of |log x| over every positive finite float (measured
// exhaustively against f64 libm, worst at x = 0x1.65ffa8p+1; tests/kernels_cpu/vector_math_test.cc
// sweeps every 61st pattern): inside the reference check's model (runtime/reference/error_bound.h:
// 4 u for log).
#pragma once

#include "vector_exp.h"

namespace polyfuse::cpu::detail {

// `Lanes` gives the vector type V, an integer vector type I and the operations (vector_math_*.cc).
template <class Lanes>
[[gnu::always_inline]] inline typename Lanes::V log_lanes(typename Lanes::V x) {
  using L = Lanes;
  using V = typename L::V;
  using I = typename L::I;
  // Subnormals scaled into the normal range (exact), their exponent lowered to match.
  const V smallest_normal = L::splat(0x1p-126f);
  const V scaled = L::select_less(x, smallest_normal, L::mul(x, L::splat(0x1p23f)), x);
  const V exponent_shift = L::select_less(x, smallest_normal, L::splat(-23.f), L::splat(0.f));
  // bits - bits(sqrt(1/2)): the exponent above the 23 mantissa bits (arithmetic shift), m below.
  const I offset = L::splat_i(0x3f3504f3);
  const I shifted = L::sub_i(L::bits(scaled), offset);
  const V e = L::add(L::to_float(L::shift_right_23(shifted)), exponent_shift);
  const V m = L::from_bits(L::add_i(L::and_i(shifted, L::splat_i(0x007fffff)), offset));
  const V f = L::sub(m, L::splat(1.f));
  static constexpr float kP[] = {7.0376836292e-2f, -1.1514610310e-1f, 1.1676998740e-1f,
                                 -1.2420140846e-1f, 1.4249322787e-1f, -1.6668057665e-1f,
                                 2.0000714765e-1f,  -2.4999993993e-1f, 3.3333331174e-1f};
  const V z = L::mul(f, f);
  V y = L::mul(L::mul(f, z), horner<L>(f, kP));          // f^3 P(f)
  y = L::fmadd(e, L::splat(-2.12194440e-4f), y);          // + e (ln 2 - 0.693359375)
  y = L::fnmadd(L::splat(0.5f), z, y);                    // - f^2 / 2
  V r = L::fmadd(e, L::splat(0.693359375f), L::add(f, y));  // + f, + e 0.693359375
  // The edges: NaN and +infinity themselves (x < infinity fails), 0 and below -infinity, below 0 NaN.
  r = L::select_less(x, L::splat(__builtin_inff()), r, L::add(x, x));
  r = L::select_less(x, L::splat(0x1p-149f), L::splat(-__builtin_inff()), r);
  return L::select_less(x, L::splat(0.f), L::splat(__builtin_nanf("")), r);
}

}  // namespace polyfuse::cpu::detail
