// f32 <-> f16/bf16 rounding of the reference: known values, every f16 and bf16 bit
// pattern, and agreement with the independent conversions of kernels/cpu.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "polyfuse/cpu/types.h"
#include "runtime/reference/element_rounding.h"

namespace polyfuse::reference {
namespace {

float from_raw(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

TEST(Rounding, F16KnownValues) {
  EXPECT_EQ(f32_to_f16_bits(1.0f), 0x3c00);
  EXPECT_EQ(f32_to_f16_bits(-2.0f), 0xc000);
  EXPECT_EQ(f32_to_f16_bits(65504.0f), 0x7bff);        // largest finite
  EXPECT_EQ(f32_to_f16_bits(65519.0f), 0x7bff);        // below the halfway point
  EXPECT_EQ(f32_to_f16_bits(65520.0f), 0x7c00);        // ties away to infinity
  EXPECT_EQ(f32_to_f16_bits(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(f32_to_f16_bits(std::ldexp(1.0f, -25)), 0x0000);  // tie to even: zero
  EXPECT_EQ(f32_to_f16_bits(std::ldexp(3.0f, -26)), 0x0001);  // 0.75 ulp rounds up
  EXPECT_EQ(f32_to_f16_bits(std::ldexp(3.0f, -25)), 0x0002);  // 1.5 ulp: tie to even (2)
  EXPECT_EQ(f32_to_f16_bits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie to even: 1
  EXPECT_EQ(f32_to_f16_bits(1.0f + std::ldexp(3.0f, -11)), 0x3c02);  // tie to even: up
  EXPECT_EQ(f32_to_f16_bits(std::ldexp(1.0f, -14) * (1.0f - std::ldexp(1.0f, -12))), 0x0400);
  EXPECT_TRUE(std::isnan(f16_bits_to_f32(f32_to_f16_bits(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(f16_bits_to_f32(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(f16_bits_to_f32(0xfc00), -std::numeric_limits<float>::infinity());
}

TEST(Rounding, Bf16KnownValues) {
  EXPECT_EQ(f32_to_bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(f32_to_bf16_bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80);        // tie to even
  EXPECT_EQ(f32_to_bf16_bits(1.0f + std::ldexp(3.0f, -8)), 0x3f82);        // tie to even: up
  EXPECT_EQ(f32_to_bf16_bits(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)), 0x3f81);
  EXPECT_EQ(bf16_bits_to_f32(0x4049), 3.140625f);
  EXPECT_EQ(round_to(ElementType::bf16, 3.14159265f), 3.140625f);
  EXPECT_EQ(round_to(ElementType::f32, 3.14159265f), 3.14159265f);
}

TEST(Rounding, EveryF16AndBf16PatternRoundTrips) {
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    const auto b = static_cast<std::uint16_t>(bits);
    const float h = f16_bits_to_f32(b);
    if (!std::isnan(h)) {
      ASSERT_EQ(f32_to_f16_bits(h), b) << std::hex << bits;
      ASSERT_EQ(h, polyfuse::cpu::f16_to_f32(b)) << std::hex << bits;
    }
    const float w = bf16_bits_to_f32(b);
    if (!std::isnan(w)) {
      ASSERT_EQ(f32_to_bf16_bits(w), b) << std::hex << bits;
    }
  }
}

TEST(Rounding, AgreesWithKernelsCpuOnManyFloats) {
  // Every 4099th f32 bit pattern (all exponents, odd mantissas), both signs.
  for (std::uint64_t raw = 0; raw < 0x100000000ull; raw += 4099) {
    const float value = from_raw(static_cast<std::uint32_t>(raw));
    if (std::isnan(value)) continue;
    ASSERT_EQ(f32_to_f16_bits(value), polyfuse::cpu::f32_to_f16(value)) << value;
    ASSERT_EQ(f32_to_bf16_bits(value), polyfuse::cpu::f32_to_bf16(value)) << value;
  }
}

TEST(Rounding, UnitRoundoff) {
  EXPECT_EQ(unit_roundoff(ElementType::f16), std::ldexp(1.0, -11));
  EXPECT_EQ(unit_roundoff(ElementType::bf16), std::ldexp(1.0, -8));
  EXPECT_EQ(unit_roundoff(ElementType::f32), std::ldexp(1.0, -24));
}

}  // namespace
}  // namespace polyfuse::reference
