// Internal: the exponential of the vector paths (vector_math.h), one template for 8 lanes (AVX2 +
// FMA) and 16 (AVX-512): the same operations lane by lane, so the same bits on either.
//
// exp(x) = 2^n e^r with n = round(x log2 e) and r = x - n ln 2 (two FMAs: ln 2 as a float plus
// the rest), e^r by Cephes' expf polynomial on |r| <= ln 2 / 2, and p 2^n rounded once
// (subnormal results included): AVX-512's vscalefps; on AVX2 p 2^n1 2^n2 with n1 = n >> 1, each a
// normal float's scale, so the first product is exact and the second rounds once: the same bits.
// x is clamped to [-104, 89] first (NaN kept: the max and min return their second operand when
// one is NaN), beyond which the result is 0 or infinity anyway.
// Accuracy: within 1.4 u (u = 2^-24) relative over the sweep of tests/kernels_cpu/vector_math_test.cc
// (libmvec's expf: 3.5 u on 16 lanes), at half the time a call of libmvec's 16-lane expf took.
#pragma once

namespace polyfuse::cpu::detail {

// c[0] x^(N-1) + c[1] x^(N-2) + ... + c[N-1] by Horner's rule on FMAs.
template <class Lanes, int N>
[[gnu::always_inline]] inline typename Lanes::V horner(typename Lanes::V x, const float (&c)[N]) {
  typename Lanes::V p = Lanes::splat(c[0]);
  for (int i = 1; i < N; ++i) p = Lanes::fmadd(p, x, Lanes::splat(c[i]));
  return p;
}

// `Lanes` gives the vector type V and the operations (see vector_math_*.cc).
template <class Lanes>
[[gnu::always_inline]] inline typename Lanes::V exp_lanes(typename Lanes::V x) {
  using L = Lanes;
  x = L::min(L::splat(89.f), L::max(L::splat(-104.f), x));
  const typename L::V n = L::round(L::mul(x, L::splat(1.44269504088896341f)));
  typename L::V r = L::fnmadd(n, L::splat(0x1.62e43p-1f), x);  // x - n ln2, ln2 = 0x1.62e43p-1 - 0x1.05c610p-29
  r = L::fnmadd(n, L::splat(-0x1.05c610p-29f), r);
  static constexpr float kP[] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                                 4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
  const typename L::V p = L::add(L::fmadd(horner<L>(r, kP), L::mul(r, r), r), L::splat(1.f));  // 1 + r + r^2 P(r)
  return L::scale(p, n);  // p 2^n, rounded once
}

}  // namespace polyfuse::cpu::detail
