// pf::x2 (kernels/cuda/pf_pointwise_x2.cuh), the emulator's host path: each operation on a
// pair of 16-bit values against an independent reference, the exact result in double rounded
// once to the 16-bit type by a search over its encodings (nearest, ties to even, overflow to
// infinity). This is the claim the packed prologues rest on (codegen/packed_prologue.h): one
// +, - or x of two f16/bf16 values computed in f32 and rounded again gives the correctly
// rounded result, so a prologue packed or element by element gives the same bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "polyfuse_emu/cuda_emulation.h"
#include "polyfuse_cuda.cuh"

namespace {

struct Format {
  int exponent_bits, mantissa_bits;
  int bias() const { return (1 << (exponent_bits - 1)) - 1; }
  unsigned infinity() const { return ((1u << exponent_bits) - 1) << mantissa_bits; }
  unsigned sign() const { return 1u << (exponent_bits + mantissa_bits); }
  double value(unsigned bits) const {  // finite encodings only
    const unsigned e = (bits >> mantissa_bits) & ((1u << exponent_bits) - 1), m = bits & ((1u << mantissa_bits) - 1);
    const double magnitude = e == 0 ? std::ldexp(m, 1 - bias() - mantissa_bits)
                                    : std::ldexp((1u << mantissa_bits) | m, int(e) - bias() - mantissa_bits);
    return bits & sign() ? -magnitude : magnitude;
  }
  // v rounded to the nearest encoding, ties to the even one; past the largest finite value
  // by half an ulp or more: infinity.
  unsigned round(double v) const {
    const unsigned s = std::signbit(v) ? sign() : 0u;
    const double a = std::fabs(v);
    unsigned lo = 0, hi = infinity();  // value(lo) <= a, searching the largest such finite encoding
    while (hi - lo > 1) {
      const unsigned mid = (lo + hi) / 2;
      (value(mid) <= a ? lo : hi) = mid;
    }
    if (lo == infinity() - 1) {  // the largest finite value: infinity from half an ulp above it
      const double ulp = value(lo) - value(lo - 1);
      return s | (a - value(lo) >= ulp / 2 ? infinity() : lo);
    }
    const double below = a - value(lo), above = value(lo + 1) - a;
    const unsigned nearest = below < above ? lo : above < below ? lo + 1 : (lo % 2 == 0 ? lo : lo + 1);
    return s | nearest;
  }
};

const Format f16{5, 10}, bf16{8, 7};

template <class T> unsigned pair(unsigned lo, unsigned hi) { return lo | hi << 16; }

template <class T> void check_binary_ops(const Format& f, std::uint32_t seed) {
  std::mt19937 rng(seed);
  const unsigned finite = f.infinity() - 1;
  std::uniform_int_distribution<unsigned> magnitude(0, finite), sign(0, 1);
  auto draw = [&] { return magnitude(rng) | (sign(rng) ? f.sign() : 0u); };
  auto element = [](unsigned packed, int i) { return (packed >> (16 * i)) & 0xffffu; };
  for (int trial = 0; trial < 200000; ++trial) {
    const unsigned a = pair<T>(draw(), draw()), b = pair<T>(draw(), draw());
    for (int i = 0; i < 2; ++i) {
      const double x = f.value(element(a, i)), y = f.value(element(b, i));
      SCOPED_TRACE(::testing::Message() << "x = " << x << ", y = " << y);
      ASSERT_EQ(element(pf::x2::mul<T>(a, b), i), f.round(x * y));  // exact in double
      ASSERT_EQ(element(pf::x2::add<T>(a, b), i), f.round(x + y));
      ASSERT_EQ(element(pf::x2::sub<T>(a, b), i), f.round(x - y));
      if (x != y || x != 0) {  // max/min of two zeros of different signs may return either
        ASSERT_EQ(f.value(element(pf::x2::max<T>(a, b), i)), std::fmax(x, y));
        ASSERT_EQ(f.value(element(pf::x2::min<T>(a, b), i)), std::fmin(x, y));
      }
      ASSERT_EQ(f.value(element(pf::x2::relu<T>(a), i)), x > 0 ? x : 0.0);
      ASSERT_EQ(element(pf::x2::abs<T>(a), i), element(a, i) & ~f.sign());
      ASSERT_EQ(element(pf::x2::neg<T>(a), i), element(a, i) ^ f.sign());
    }
  }
}

TEST(PointwiseX2, F16OperationsAreCorrectlyRounded) { check_binary_ops<__half>(f16, 1); }
TEST(PointwiseX2, Bf16OperationsAreCorrectlyRounded) { check_binary_ops<__nv_bfloat16>(bf16, 2); }

TEST(PointwiseX2, ReluOfANanIsZeroAsTheF32Lambda) {
  EXPECT_EQ(pf::x2::relu<__half>(0x7e00fe00u), 0u);  // a quiet NaN of each sign
  EXPECT_EQ(pf::x2::relu<__nv_bfloat16>(0x7fc0ffc0u), 0u);
}

TEST(PointwiseX2, TheReferenceRoundsTiesToEven) {
  // 1 + 2^-11 lies halfway between 1 and the next f16 (1 + 2^-10): to 1 (even); 1 + 3 * 2^-11 to 1 + 2^-9
  EXPECT_EQ(f16.round(1.0 + std::ldexp(1, -11)), 0x3c00u);
  EXPECT_EQ(f16.round(1.0 + 3 * std::ldexp(1, -11)), 0x3c02u);
  EXPECT_EQ(f16.round(65520.0), f16.infinity());  // half an ulp past 65504
  EXPECT_EQ(f16.round(65519.0), 0x7bffu);
}

}  // namespace
