// FP8 (OCP 8-bit floating point, as the PTX ISA's .e4m3 and .e5m2) to and from f32: the one
// definition of these conversions, used by the reference (random inputs, rounding), the
// CPU target's generated code (decoding in its loads) and the tests. Header-only, no
// dependency beyond <cstdint>/<cstring>/<cmath>, so every side includes it as is.
//
// e4m3: sign, 4 exponent bits (bias 7), 3 mantissa bits. No infinity; S.1111.111 (0x7f,
//       0xff) is NaN, so the largest finite value is S.1111.110 = 448. Subnormals are
//       m * 2^-9 (the smallest 2^-9), the smallest normal 2^-6.
// e5m2: sign, 5 exponent bits (bias 15), 2 mantissa bits, IEEE-like: S.11111.00 is
//       infinity, S.11111.{01,10,11} NaN; the largest finite value 57344 = 1.75 * 2^15,
//       subnormals m * 2^-16, the smallest normal 2^-14.
//
// f32 -> FP8 is `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32`: round to nearest, ties to even;
// .satfinite: a value whose magnitude rounds past the largest finite value (infinity
// included) becomes that value with its sign; NaN becomes the canonical NaN 0x7f; values
// at most half the smallest subnormal become a zero of their sign. (CUDA's cuda_fp8.hpp
// host conversion, __nv_cvt_float_to_fp8 with __NV_SATFINITE, behaves the same.)
// FP8 -> f32 is exact (every FP8 value is an f32 value); NaN decodes to a quiet NaN, and
// e5m2's infinities to infinities. FP8 -> f16 is exact too (`cvt.rn.f16x2.{e4m3x2,e5m2x2}`),
// NaN giving f16's canonical 0x7fff.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace polyfuse::fp8 {

enum class Format { e4m3, e5m2 };

// The code of the largest finite positive value (e4m3 0x7e = 448, e5m2 0x7b = 57344).
constexpr std::uint8_t max_finite_code(Format format) { return format == Format::e4m3 ? 0x7e : 0x7b; }
// Mantissa bits (3, 2) and exponent bias (7, 15).
constexpr int mantissa_bits(Format format) { return format == Format::e4m3 ? 3 : 2; }
constexpr int exponent_bias(Format format) { return format == Format::e4m3 ? 7 : 15; }

// True when `code` is a NaN of `format`.
constexpr bool is_nan(Format format, std::uint8_t code) {
  return format == Format::e4m3 ? (code & 0x7f) == 0x7f : (code & 0x7f) > 0x7c;
}

// The value of `code` (exact; NaN -> quiet NaN).
inline float to_f32(Format format, std::uint8_t code) {
  if (is_nan(format, code)) return std::numeric_limits<float>::quiet_NaN();
  const int m = mantissa_bits(format);
  const int exponent = (code & 0x7f) >> m;
  const int mantissa = code & ((1 << m) - 1);
  const int min_exponent = 1 - exponent_bias(format);
  float magnitude;
  if (format == Format::e5m2 && exponent == 0x1f) {
    magnitude = std::numeric_limits<float>::infinity();
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), min_exponent - m);  // subnormal or zero
  } else {
    magnitude = std::ldexp(static_cast<float>((1 << m) | mantissa), exponent - exponent_bias(format) - m);
  }
  return (code & 0x80) ? -magnitude : magnitude;
}

// `value` rounded to `format` (cvt.rn.satfinite; see the file comment).
inline std::uint8_t from_f32(Format format, float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const std::uint8_t sign = static_cast<std::uint8_t>((bits >> 24) & 0x80u);
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return 0x7f;  // NaN: the canonical NaN
  const int m = mantissa_bits(format);
  const int dropped = 23 - m;                   // f32 mantissa bits that do not fit
  const int min_exponent = 1 - exponent_bias(format);
  const int exponent = static_cast<int>(magnitude >> 23) - 127;
  std::uint32_t code;
  if (exponent >= min_exponent) {
    // Normal range: rebias the exponent, round the dropped bits to nearest even (a carry
    // moves into the exponent, as it should). Infinity rounds past every finite code.
    std::uint32_t rebased = magnitude - (static_cast<std::uint32_t>(127 - exponent_bias(format)) << 23);
    rebased += (1u << (dropped - 1)) - 1u + ((rebased >> dropped) & 1u);
    code = rebased >> dropped;
  } else {
    // Below the smallest normal: the value in units of the smallest subnormal, rounded to
    // nearest even (1 << m, the smallest normal, when it rounds up that far).
    const int shift = dropped + min_exponent - exponent;  // > dropped
    if (shift > 24) return sign;  // below half the smallest subnormal
    const std::uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
    const std::uint32_t kept = significand >> shift;
    const std::uint32_t rest = significand & ((1u << shift) - 1u);
    const std::uint32_t half = 1u << (shift - 1);
    code = kept + ((rest > half || (rest == half && (kept & 1u))) ? 1u : 0u);
  }
  if (code > max_finite_code(format)) code = max_finite_code(format);  // .satfinite
  return static_cast<std::uint8_t>(sign | code);
}

// `value` rounded to the nearest value of `format` (saturating), as an f32.
inline float round_f32(Format format, float value) { return to_f32(format, from_f32(format, value)); }

// The IEEE binary16 bits of `code` (exact; NaN -> 0x7fff, as cvt.rn.f16x2.e4m3x2 gives).
inline std::uint16_t to_f16_bits(Format format, std::uint8_t code) {
  if (is_nan(format, code)) return 0x7fff;
  const std::uint16_t sign = static_cast<std::uint16_t>((code & 0x80) << 8);
  if (format == Format::e5m2) return static_cast<std::uint16_t>(code << 8);  // e5m2 is f16's top byte
  // e4m3: f16 has the range and precision of every e4m3 value (normal from 2^-14).
  const int exponent = (code & 0x7f) >> 3;
  int mantissa = code & 0x7;
  if (exponent == 0 && mantissa == 0) return sign;
  int f16_exponent = exponent - 7 + 15;
  if (exponent == 0) {  // subnormal e4m3: mantissa * 2^-9, normal in f16
    f16_exponent = 1 - 7 + 15;
    while ((mantissa & 0x8) == 0) {
      mantissa <<= 1;
      --f16_exponent;
    }
    mantissa &= 0x7;
  }
  return static_cast<std::uint16_t>(sign | (f16_exponent << 10) | (mantissa << 7));
}

}  // namespace polyfuse::fp8
