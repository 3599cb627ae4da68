// FP8 (e4m3, e5m2) conversions of polyfuse/cpu/fp8.h against tables written from the OCP FP8
// specification and the PTX ISA (cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32, cvt.rn.f16x2.{e4m3x2,e5m2x2}):
// every code decoded (to f32 and to f16), every finite code round-tripped, every tie between
// neighbouring codes, saturation, NaN and underflow, and a sweep of f32 values against a
// nearest-value search; the reference's rounding and kernels/cpu's tables agree with it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "polyfuse/cpu/fp8.h"
#include "polyfuse/cpu/types.h"
#include "runtime/reference/element_rounding.h"
#include "runtime/reference/error_bound.h"

namespace polyfuse::reference {
namespace {

using fp8::Format;

constexpr Format kFormats[] = {Format::e4m3, Format::e5m2};

// The value of `code` written from the spec's field definitions (not from fp8.h): NaN as NaN.
double spec_value(Format format, int code) {
  const bool e4m3 = format == Format::e4m3;
  const int exponent_bits = e4m3 ? 4 : 5, mantissa_bits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  const int sign = code >> 7;
  const int exponent = (code >> mantissa_bits) & ((1 << exponent_bits) - 1);
  const int mantissa = code & ((1 << mantissa_bits) - 1);
  const int all_ones = (1 << exponent_bits) - 1;
  double magnitude;
  if (e4m3 && exponent == all_ones && mantissa == 7) return std::numeric_limits<double>::quiet_NaN();
  if (!e4m3 && exponent == all_ones) {
    if (mantissa != 0) return std::numeric_limits<double>::quiet_NaN();
    magnitude = std::numeric_limits<double>::infinity();
  } else if (exponent == 0) {
    magnitude = std::pow(2.0, 1 - bias) * (mantissa / std::pow(2.0, mantissa_bits));
  } else {
    magnitude = std::pow(2.0, exponent - bias) * (1 + mantissa / std::pow(2.0, mantissa_bits));
  }
  return sign ? -magnitude : magnitude;
}

// The finite non-negative values of `format`, ascending, with their codes.
std::vector<std::pair<double, std::uint8_t>> finite_values(Format format) {
  std::vector<std::pair<double, std::uint8_t>> values;
  for (int code = 0; code < 0x80; ++code) {
    const double value = spec_value(format, code);
    if (std::isfinite(value)) values.emplace_back(value, static_cast<std::uint8_t>(code));
  }
  return values;
}

// cvt.rn.satfinite by search over `values` (finite_values): the nearest finite value, ties to
// the even code, saturated.
std::uint8_t nearest_code(const std::vector<std::pair<double, std::uint8_t>>& values, float value) {
  if (std::isnan(value)) return 0x7f;
  const std::uint8_t sign = std::signbit(value) ? 0x80 : 0;
  const double magnitude = std::fabs(static_cast<double>(value));
  // Past the largest finite value it is the nearest (distances that far would round in f64).
  if (magnitude >= values.back().first) return static_cast<std::uint8_t>(sign | values.back().second);
  std::uint8_t best = values.front().second;
  double best_distance = std::numeric_limits<double>::infinity();
  for (const auto& [candidate, code] : values) {
    const double distance = std::fabs(candidate - magnitude);
    if (distance < best_distance || (distance == best_distance && (code & 1) == 0)) {
      best = code;
      best_distance = distance;
    }
  }
  return static_cast<std::uint8_t>(sign | best);
}

TEST(Fp8Rounding, KnownCodes) {
  EXPECT_EQ(fp8::to_f32(Format::e4m3, 0x38), 1.0f);
  EXPECT_EQ(fp8::to_f32(Format::e4m3, 0x7e), 448.0f);                  // largest finite
  EXPECT_EQ(fp8::to_f32(Format::e4m3, 0x08), std::ldexp(1.0f, -6));    // smallest normal
  EXPECT_EQ(fp8::to_f32(Format::e4m3, 0x01), std::ldexp(1.0f, -9));    // smallest subnormal
  EXPECT_EQ(fp8::to_f32(Format::e4m3, 0xc4), -3.0f);
  EXPECT_TRUE(std::isnan(fp8::to_f32(Format::e4m3, 0x7f)));
  EXPECT_TRUE(std::isnan(fp8::to_f32(Format::e4m3, 0xff)));
  EXPECT_TRUE(std::signbit(fp8::to_f32(Format::e4m3, 0x80)));
  EXPECT_EQ(fp8::to_f32(Format::e5m2, 0x3c), 1.0f);
  EXPECT_EQ(fp8::to_f32(Format::e5m2, 0x7b), 57344.0f);
  EXPECT_EQ(fp8::to_f32(Format::e5m2, 0x04), std::ldexp(1.0f, -14));
  EXPECT_EQ(fp8::to_f32(Format::e5m2, 0x01), std::ldexp(1.0f, -16));
  EXPECT_EQ(fp8::to_f32(Format::e5m2, 0xfc), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(fp8::to_f32(Format::e5m2, 0x7d)));
  // Encoding: saturation (.satfinite), NaN, ties, underflow.
  EXPECT_EQ(fp8::from_f32(Format::e4m3, 464.0f), 0x7e);   // the tie above 448: even (448)
  EXPECT_EQ(fp8::from_f32(Format::e4m3, 465.0f), 0x7e);   // rounds past 448: saturates
  EXPECT_EQ(fp8::from_f32(Format::e4m3, 1e9f), 0x7e);
  EXPECT_EQ(fp8::from_f32(Format::e4m3, -std::numeric_limits<float>::infinity()), 0xfe);
  EXPECT_EQ(fp8::from_f32(Format::e5m2, std::numeric_limits<float>::infinity()), 0x7b);
  EXPECT_EQ(fp8::from_f32(Format::e5m2, 61440.0f), 0x7b);  // the tie above 57344 would be inf
  EXPECT_EQ(fp8::from_f32(Format::e4m3, std::numeric_limits<float>::quiet_NaN()), 0x7f);
  EXPECT_EQ(fp8::from_f32(Format::e5m2, -std::numeric_limits<float>::quiet_NaN()), 0x7f);
  EXPECT_EQ(fp8::from_f32(Format::e4m3, std::ldexp(1.0f, -10)), 0x00);   // half the smallest subnormal: even
  EXPECT_EQ(fp8::from_f32(Format::e4m3, -std::ldexp(1.0f, -10)), 0x80);  // a zero of its sign
  EXPECT_EQ(fp8::from_f32(Format::e4m3, std::ldexp(3.0f, -11)), 0x01);   // 0.75 of it: up
  EXPECT_EQ(fp8::from_f32(Format::e4m3, std::ldexp(3.0f, -10)), 0x02);   // 1.5 of it: tie to even
  EXPECT_EQ(fp8::from_f32(Format::e4m3, 1.0625f), 0x38);                 // 1 + half an ulp: even
  EXPECT_EQ(fp8::from_f32(Format::e4m3, 1.1875f), 0x3a);                 // 1 + 3/2 ulp: even, up
  EXPECT_EQ(fp8::from_f32(Format::e4m3, std::ldexp(15.5f, -10)), 0x08);  // rounds up into the normals
  EXPECT_EQ(fp8::from_f32(Format::e5m2, 1.125f), 0x3c);
  EXPECT_EQ(fp8::from_f32(Format::e5m2, 1.375f), 0x3e);
}

TEST(Fp8Rounding, EveryCodeDecodesAsTheSpecSays) {
  for (const Format format : kFormats) {
    for (int code = 0; code < 256; ++code) {
      const auto c = static_cast<std::uint8_t>(code);
      const double want = spec_value(format, code);
      const float got = fp8::to_f32(format, c);
      const float f16 = f16_bits_to_f32(fp8::to_f16_bits(format, c));
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(got)) << code;
        ASSERT_TRUE(fp8::is_nan(format, c)) << code;
        ASSERT_EQ(fp8::to_f16_bits(format, c), 0x7fff) << code;
        continue;
      }
      ASSERT_EQ(static_cast<double>(got), want) << "format " << static_cast<int>(format) << " code " << code;
      ASSERT_EQ(std::signbit(got), code >= 0x80) << code;
      ASSERT_EQ(f16, got) << "f16 decoding of code " << code;  // exact in f16 too
      ASSERT_EQ(std::signbit(f16), code >= 0x80) << code;
      ASSERT_EQ(got, format == Format::e4m3 ? cpu::e4m3_to_f32(c) : cpu::e5m2_to_f32(c)) << code;
    }
  }
}

TEST(Fp8Rounding, EveryFiniteCodeRoundTripsAndEveryTieGoesToEven) {
  for (const Format format : kFormats) {
    for (int code = 0; code < 256; ++code) {
      const auto c = static_cast<std::uint8_t>(code);
      const float value = fp8::to_f32(format, c);
      if (std::isfinite(value)) {
        ASSERT_EQ(fp8::from_f32(format, value), c) << code;
      }
    }
    const auto values = finite_values(format);
    for (std::size_t i = 0; i + 1 < values.size(); ++i) {
      const auto [low, low_code] = values[i];
      const auto [high, high_code] = values[i + 1];
      const auto middle = static_cast<float>((low + high) / 2);  // exact in f32
      ASSERT_EQ(static_cast<double>(middle), (low + high) / 2);
      const std::uint8_t even = (low_code & 1) == 0 ? low_code : high_code;
      ASSERT_EQ(fp8::from_f32(format, middle), even) << "tie between " << low << " and " << high;
      ASSERT_EQ(fp8::from_f32(format, -middle), even | 0x80) << "tie between " << -low << " and " << -high;
      ASSERT_EQ(fp8::from_f32(format, std::nextafter(middle, 0.0f)), low_code) << low;
      ASSERT_EQ(fp8::from_f32(format, std::nextafter(middle, 1e30f)), high_code) << high;
    }
  }
}

TEST(Fp8Rounding, F32SweepMatchesTheNearestValueSearch) {
  // Every 2^13-th f32 bit pattern of both signs (about a million values: every exponent,
  // zeros, subnormals, infinities and NaNs), plus the values round_to(e4m3/e5m2) gives.
  for (const Format format : kFormats) {
    const ElementType type = format == Format::e4m3 ? ElementType::e4m3 : ElementType::e5m2;
    const auto values = finite_values(format);
    for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << 32); bits += 1u << 13) {
      const auto raw = static_cast<std::uint32_t>(bits) | 0x1fffu * ((bits >> 13) & 1u);  // some low bits set too
      float value;
      std::memcpy(&value, &raw, sizeof value);
      const std::uint8_t want = nearest_code(values, value);
      ASSERT_EQ(fp8::from_f32(format, value), want) << std::hexfloat << value;
      if (!std::isnan(value)) {
        ASSERT_EQ(round_to(type, value), fp8::to_f32(format, want)) << std::hexfloat << value;
      }
    }
  }
}

// The reference takes an FP8 matmul's factors as exact: every product of two finite FP8 values
// (e4m3 and e5m2, mixed too) is exact in f32.
TEST(Fp8Rounding, EveryProductOfTwoFp8ValuesIsExactInF32) {
  for (const Format left : kFormats) {
    for (const Format right : kFormats) {
      for (int a = 0; a < 256; ++a) {
        const float x = fp8::to_f32(left, static_cast<std::uint8_t>(a));
        if (!std::isfinite(x)) continue;
        for (int b = 0; b < 256; ++b) {
          const float y = fp8::to_f32(right, static_cast<std::uint8_t>(b));
          if (!std::isfinite(y)) continue;
          ASSERT_EQ(static_cast<double>(x * y), static_cast<double>(x) * static_cast<double>(y)) << a << " " << b;
        }
      }
    }
  }
}

// stored_as's FP8 rule (a rounding to the format: unit roundoff and half the smallest subnormal)
// covers the rounding fp8.h does, and claims nothing where a value may saturate.
TEST(Fp8Rounding, StoredAsBoundsTheRounding) {
  for (const Format format : kFormats) {
    const ElementType type = format == Format::e4m3 ? ElementType::e4m3 : ElementType::e5m2;
    const double largest = fp8::to_f32(format, fp8::max_finite_code(format));
    for (double value = -largest; value <= largest; value += largest / 9973) {
      const Bounded bounded = stored_as(type, {value, 0});
      const double rounded = fp8::round_f32(format, static_cast<float>(value));
      if (!std::isfinite(bounded.bound)) continue;
      ASSERT_LE(std::fabs(rounded - value), bounded.bound) << value;
    }
    for (double tiny = 1e-6; tiny < 1e-2; tiny *= 1.37) {
      ASSERT_LE(std::fabs(fp8::round_f32(format, static_cast<float>(tiny)) - tiny), stored_as(type, {tiny, 0}).bound) << tiny;
    }
    EXPECT_FALSE(std::isfinite(stored_as(type, {2 * largest, 0}).bound));  // saturates: no claim
  }
}

TEST(Fp8Rounding, TensorsEncodeToOneByteAnElement) {
  const std::vector<float> values = {1.0f, -448.0f, 0.0f, std::ldexp(1.0f, -9)};
  const std::vector<unsigned char> bytes = encode_tensor(ElementType::e4m3, values);
  ASSERT_EQ(bytes, (std::vector<unsigned char>{0x38, 0xfe, 0x00, 0x01}));
  std::vector<float> decoded(values.size());
  decode_tensor(ElementType::e4m3, bytes, decoded);
  EXPECT_EQ(decoded, values);
  EXPECT_EQ(unit_roundoff(ElementType::e4m3), std::ldexp(1.0, -4));
  EXPECT_EQ(unit_roundoff(ElementType::e5m2), std::ldexp(1.0, -3));
}

}  // namespace
}  // namespace polyfuse::reference
