// Element-type helpers and names of the basic enums.
#include "polyfuse/cpu/types.h"

#include <array>

#include "convert_x86.h"
#include "polyfuse/cpu/fp8.h"
#include "polyfuse/cpu/isa.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace polyfuse::cpu {

int64_t dtype_size(DType type) {
  switch (type) {
    case DType::f32: return 4;
    case DType::f16:
    case DType::bf16: return 2;
    case DType::e4m3:
    case DType::e5m2: return 1;
  }
  return 4;
}

const char* to_string(DType type) {
  switch (type) {
    case DType::f32: return "f32";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::e4m3: return "e4m3";
    case DType::e5m2: return "e5m2";
  }
  return "?";
}

namespace {

// The value of every code of `format`.
std::array<float, 256> fp8_table(fp8::Format format) {
  std::array<float, 256> table{};
  for (int code = 0; code < 256; ++code) table[static_cast<size_t>(code)] = fp8::to_f32(format, static_cast<uint8_t>(code));
  return table;
}

}  // namespace

float e4m3_to_f32(uint8_t code) {
  static const std::array<float, 256> table = fp8_table(fp8::Format::e4m3);
  return table[code];
}

float e5m2_to_f32(uint8_t code) {
  static const std::array<float, 256> table = fp8_table(fp8::Format::e5m2);
  return table[code];
}

uint8_t f32_to_e4m3(float value) { return fp8::from_f32(fp8::Format::e4m3, value); }
uint8_t f32_to_e5m2(float value) { return fp8::from_f32(fp8::Format::e5m2, value); }

const char* to_string(Layout layout) {
  return layout == Layout::col_major ? "col_major" : "row_major";
}

const char* to_string(Isa isa) {
  switch (isa) {
    case Isa::native: return "native";
    case Isa::generic: return "generic";
    case Isa::avx2: return "avx2";
    case Isa::avx512: return "avx512";
    case Isa::neon: return "neon";
  }
  return "?";
}

// IEEE binary16 -> binary32, exact (subnormals and infinities included); a NaN keeps its
// payload and comes out quiet, as IEEE 754 and F16C's vcvtph2ps make it.
float f16_to_f32(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  uint32_t out;
  if (exponent == 0x1f) {
    out = sign | 0x7f800000u | (mantissa << 13) | (mantissa != 0 ? 0x400000u : 0u);
  } else if (exponent != 0) {
    out = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    out = sign;
  } else {  // subnormal: normalise
    exponent = 113;
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      --exponent;
    }
    out = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
  }
  float value;
  std::memcpy(&value, &out, sizeof value);
  return value;
}

// binary32 -> binary16 with round to nearest even; overflow gives infinity.
uint16_t f32_to_f16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs < 0x38800000u) {  // result is subnormal or zero
    if (abs < 0x33000000u) return sign;  // below half the smallest subnormal
    const uint32_t exponent = abs >> 23;
    const uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t r = 126u - exponent;  // value = mantissa * 2^(exponent-150); unit 2^-24
    uint32_t half = mantissa >> r;
    const uint32_t rest = mantissa & ((1u << r) - 1u);
    const uint32_t halfway = 1u << (r - 1u);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t out = ((abs >> 13) - (112u << 10));
  const uint32_t rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (out & 1u))) ++out;
  return static_cast<uint16_t>(sign | out);
}

bool bulk_conversions_vectorised() {
#if defined(__x86_64__)
  static const bool vectorised = [] {
    // F16C: CPUID leaf 1, ECX bit 29 (clang 14's __builtin_cpu_supports does not know "f16c").
    unsigned a = 0, b = 0, c = 0, d = 0;
    const bool f16c = __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29)) != 0;
    const Isa isa = best_isa();
    return (isa == Isa::avx2 || isa == Isa::avx512) && f16c;
  }();
  return vectorised;
#else
  return false;
#endif
}

void f16_to_f32(const uint16_t* src, int64_t n, float* dst) {
#if defined(__x86_64__)
  if (bulk_conversions_vectorised()) return detail::f16_to_f32_f16c(src, n, dst);
#endif
  for (int64_t i = 0; i < n; ++i) dst[i] = f16_to_f32(src[i]);
}

void bf16_to_f32(const uint16_t* src, int64_t n, float* dst) {
#if defined(__x86_64__)
  if (bulk_conversions_vectorised()) return detail::bf16_to_f32_avx2(src, n, dst);
#endif
  for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_f32(src[i]);
}

void f32_to_f16(const float* src, int64_t n, uint16_t* dst) {
#if defined(__x86_64__)
  if (bulk_conversions_vectorised()) return detail::f32_to_f16_f16c(src, n, dst);
#endif
  for (int64_t i = 0; i < n; ++i) dst[i] = f32_to_f16(src[i]);
}

void f32_to_bf16(const float* src, int64_t n, uint16_t* dst) {
#if defined(__x86_64__)
  if (bulk_conversions_vectorised()) return detail::f32_to_bf16_avx2(src, n, dst);
#endif
  for (int64_t i = 0; i < n; ++i) dst[i] = f32_to_bf16(src[i]);
}

}  // namespace polyfuse::cpu
