// Internal: the error function of the vector paths (vector_math.h), one template for 8 lanes
// (AVX2 + FMA) and 16 (AVX-512) as vector_exp.h: the same operations lane by lane, so the same
// bits on either.
//
// |x| < 1: x P(x^2), P of degree 6 (a weighted least-squares fit of erf(x) / x, relative error
// 1.2e-9 before rounding; its constant term as two floats); 1 <= |x|: sign(x) (1 - e^(-a^2) Q(1 / a)) with a = min(|x|, 4) (erf
// is 1 in f32 from 3.92 on), Q of degree 9 fitting erfc(a) e^(a^2) (relative error 1.5e-8),
// e^(-a^2) by vector_exp.h. The fits: scripts of this session's note (numpy, Chebyshev nodes,
// Lawson reweighting).
// Accuracy: within 1.2 u (u = 2^-24) absolute over every 7th f32 bit pattern (checked against f64
// libm), as libmvec's 8-lane erff (1.3 u); its 16-lane erff errs by 4.0 u.
#pragma once

#include "vector_exp.h"

namespace polyfuse::cpu::detail {

template <class Lanes>
[[gnu::always_inline]] inline typename Lanes::V erf_lanes(typename Lanes::V x) {
  using L = Lanes;
  using V = typename L::V;
  const V one = L::splat(1.f);
  // |x| < 1
  const V z = L::mul(x, x);
  static constexpr float kP1[] = {0x1.496dd2p-14f, -0x1.a3f87cp-11f, 0x1.5405eep-8f,
                                  -0x1.b7f916p-6f, 0x1.ce2cf8p-4f,   -0x1.81273ep-2f};
  const V p = horner<L>(z, kP1);
  // x c0 + x^3 P1(x^2) with c0 as two floats (one float's rounding of it errs by 1 u near |x| = 1)
  const V rest = L::fmadd(L::mul(x, z), p, L::mul(x, L::splat(0x1.fcaaaap-25f)));
  const V small = L::fmadd(x, L::splat(0x1.20dd74p+0f), rest);
  // 1 <= |x| (NaN: min keeps it)
  const V a = L::min(L::splat(4.f), L::abs(x));
  const V u = L::div(one, a);
  static constexpr float kQ[] = {0x1.f73ed8p-6f,  -0x1.701234p-3f, 0x1.c0c802p-2f, -0x1.12ef06p-1f, 0x1.e829b4p-3f,
                                 0x1.d7d184p-3f,  -0x1.80e0d2p-2f, 0x1.50705cp-6f, 0x1.1fa012p-1f,  0x1.fbcd46p-14f};
  const V q = horner<L>(u, kQ);
  const V e = exp_lanes<L>(L::sub(L::splat(0.f), L::mul(a, a)));
  const V large = L::copy_sign(L::fnmadd(e, q, one), x);
  return L::select_less(L::abs(x), one, small, large);
}

}  // namespace polyfuse::cpu::detail
