#include "runtime/reference/element_rounding.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "frontend/diagnostics.h"
#include "polyfuse/cpu/fp8.h"

namespace polyfuse::reference {
namespace {

std::uint32_t bits_of(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float float_of(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

}  // namespace

std::uint16_t f32_to_f16_bits(float value) {
  const std::uint32_t bits = bits_of(value);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return sign | 0x7e00u;  // NaN (quiet)
  if (magnitude >= 0x477ff000u) return sign | 0x7c00u;  // rounds to >= 65520: inf
  const int exponent = static_cast<int>(magnitude >> 23) - 127;
  if (exponent >= -14) {
    // Normal f16: keep 10 mantissa bits, round the 13 dropped bits to nearest even.
    std::uint32_t rebased = magnitude - (static_cast<std::uint32_t>(127 - 15) << 23);
    rebased += 0x0fffu + ((rebased >> 13) & 1u);
    return sign | static_cast<std::uint16_t>(rebased >> 13);
  }
  if (exponent < -25) return sign;  // below half the smallest subnormal: zero
  // Subnormal f16: the value in units of 2^-24, rounded to nearest even.
  const std::uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  const int shift = -exponent - 14 + 13;  // 14..24 bits dropped
  const std::uint32_t kept = mantissa >> shift;
  const std::uint32_t rest = mantissa & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1);
  const std::uint32_t rounded = kept + ((rest > half || (rest == half && (kept & 1u))) ? 1u : 0u);
  return sign | static_cast<std::uint16_t>(rounded);
}

float f16_bits_to_f32(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1fu;
  const std::uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1f) return float_of(sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0) return float_of(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
  // Zero or subnormal: mantissa * 2^-24, exact in f32.
  const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  return sign ? -magnitude : magnitude;
}

std::uint16_t f32_to_bf16_bits(float value) {
  std::uint32_t bits = bits_of(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>(bits >> 16);
}

float bf16_bits_to_f32(std::uint16_t bits) {
  return float_of(static_cast<std::uint32_t>(bits) << 16);
}

float round_to(ElementType type, float value) {
  switch (type) {
    case ElementType::f16: return f16_bits_to_f32(f32_to_f16_bits(value));
    case ElementType::bf16: return bf16_bits_to_f32(f32_to_bf16_bits(value));
    case ElementType::f32: return value;
    case ElementType::i32:
    case ElementType::i64:
    case ElementType::u8: return static_cast<float>(integer_stored(type, value));
    case ElementType::e4m3:
    case ElementType::e5m2: return fp8::round_f32(fp8_format(type), value);
  }
  return value;
}

fp8::Format fp8_format(ElementType type) {
  PF_INTERNAL_CHECK(is_fp8(type), "fp8_format: not an FP8 type");
  return type == ElementType::e4m3 ? fp8::Format::e4m3 : fp8::Format::e5m2;
}

double integer_stored(ElementType type, double value) {
  if (std::isnan(value)) return 0;
  const double lowest = type == ElementType::u8 ? 0.0 : type == ElementType::i32 ? -2147483648.0 : -9223372036854775808.0;
  const double highest = type == ElementType::u8 ? 255.0 : type == ElementType::i32 ? 2147483647.0 : 9223372036854775807.0;
  return std::clamp(std::nearbyint(value), lowest, highest);
}

std::uint16_t to_bits(ElementType type, float value) {
  PF_INTERNAL_CHECK(type == ElementType::f16 || type == ElementType::bf16, "to_bits: f16 or bf16 only");
  return type == ElementType::f16 ? f32_to_f16_bits(value) : f32_to_bf16_bits(value);
}

float from_bits(ElementType type, std::uint16_t bits) {
  PF_INTERNAL_CHECK(type == ElementType::f16 || type == ElementType::bf16, "from_bits: f16 or bf16 only");
  return type == ElementType::f16 ? f16_bits_to_f32(bits) : bf16_bits_to_f32(bits);
}

double unit_roundoff(ElementType type) {
  switch (type) {
    case ElementType::f16: return std::ldexp(1.0, -11);
    case ElementType::bf16: return std::ldexp(1.0, -8);
    case ElementType::f32: return std::ldexp(1.0, -24);
    case ElementType::i32:
    case ElementType::i64:
    case ElementType::u8: return 0;
    case ElementType::e4m3: return std::ldexp(1.0, -4);
    case ElementType::e5m2: return std::ldexp(1.0, -3);
  }
  return 0;
}

namespace {

// The integer element `value` (an integer held as a float) in `size` bytes of `bytes`.
void store_integer(ElementType type, float value, unsigned char* bytes) {
  const double stored = integer_stored(type, value);
  if (type == ElementType::u8) {
    bytes[0] = static_cast<unsigned char>(stored);
  } else if (type == ElementType::i32) {
    const std::int32_t v = static_cast<std::int32_t>(stored);
    std::memcpy(bytes, &v, 4);
  } else {
    const std::int64_t v = static_cast<std::int64_t>(stored);
    std::memcpy(bytes, &v, 8);
  }
}

float load_integer(ElementType type, const unsigned char* bytes) {
  if (type == ElementType::u8) return static_cast<float>(bytes[0]);
  if (type == ElementType::i32) {
    std::int32_t v;
    std::memcpy(&v, bytes, 4);
    return static_cast<float>(v);
  }
  std::int64_t v;
  std::memcpy(&v, bytes, 8);
  return static_cast<float>(v);
}

}  // namespace

std::vector<unsigned char> encode_tensor(ElementType type, const std::vector<float>& values) {
  const size_t size = static_cast<size_t>(size_in_bytes(type));
  std::vector<unsigned char> bytes(values.size() * size);
  for (size_t i = 0; i < values.size(); ++i) {
    if (is_integer(type)) {
      store_integer(type, values[i], bytes.data() + size * i);
    } else if (type == ElementType::f32) {
      std::memcpy(bytes.data() + 4 * i, &values[i], 4);
    } else if (is_fp8(type)) {
      bytes[i] = fp8::from_f32(fp8_format(type), values[i]);
    } else {
      const std::uint16_t bits = to_bits(type, values[i]);
      std::memcpy(bytes.data() + 2 * i, &bits, 2);
    }
  }
  return bytes;
}

void decode_tensor(ElementType type, const std::vector<unsigned char>& bytes, std::vector<float>& values) {
  const size_t size = static_cast<size_t>(size_in_bytes(type));
  for (size_t i = 0; i < values.size(); ++i) {
    if (is_integer(type)) {
      values[i] = load_integer(type, bytes.data() + size * i);
    } else if (type == ElementType::f32) {
      std::memcpy(&values[i], bytes.data() + 4 * i, 4);
    } else if (is_fp8(type)) {
      values[i] = fp8::to_f32(fp8_format(type), bytes[i]);
    } else {
      std::uint16_t bits;
      std::memcpy(&bits, bytes.data() + 2 * i, 2);
      values[i] = from_bits(type, bits);
    }
  }
}

}  // namespace polyfuse::reference
