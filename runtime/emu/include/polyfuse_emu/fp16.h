// __half and __nv_bfloat16 for emulated kernels: storage as 16 bits, arithmetic in float,
// conversions from float rounding to nearest even (like cvt.rn on the hardware), with
// subnormals, infinities and NaN. The subset of cuda_fp16.h / cuda_bf16.h the helpers
// and generated kernels use.
#pragma once

#include <cstring>

#include "polyfuse_emu/cuda_types.h"

namespace polyfuse::emu::fp16 {

inline unsigned float_bits(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_float(unsigned u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// IEEE binary32 -> binary16, round to nearest even.
inline unsigned short float_to_half(float f) {
  unsigned x = float_bits(f);
  const unsigned sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) return static_cast<unsigned short>(sign | (x > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (x >= 0x477ff000u) return static_cast<unsigned short>(sign | 0x7c00u);  // rounds to infinity
  if (x <= 0x33000000u) return static_cast<unsigned short>(sign);            // <= 2^-25: to zero
  const int e = static_cast<int>(x >> 23);
  unsigned r;
  if (e < 113) {  // result is subnormal: units of 2^-24
    const unsigned mant = (x & 0x7fffffu) | 0x800000u;
    const int shift = 126 - e;
    r = mant >> shift;
    const unsigned rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1u))) ++r;
  } else {
    r = (static_cast<unsigned>(e - 112) << 10) | ((x >> 13) & 0x3ffu);
    const unsigned rem = x & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
  }
  return static_cast<unsigned short>(sign | r);
}

inline float half_to_float(unsigned short h) {
  const unsigned sign = static_cast<unsigned>(h & 0x8000u) << 16;
  const unsigned exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0) {
    const float v = static_cast<float>(mant) * (1.0f / 16777216.0f);  // mant * 2^-24
    return sign ? -v : v;
  }
  if (exp == 31) return bits_float(sign | 0x7f800000u | (mant << 13));
  return bits_float(sign | ((exp + 112) << 23) | (mant << 13));
}

// IEEE binary32 -> bfloat16, round to nearest even; NaN stays a (quiet) NaN.
inline unsigned short float_to_bfloat16(float f) {
  const unsigned x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<unsigned short>((x >> 16) | 0x40u);
  return static_cast<unsigned short>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
inline float bfloat16_to_float(unsigned short b) { return bits_float(static_cast<unsigned>(b) << 16); }

}  // namespace polyfuse::emu::fp16

struct __half {
  unsigned short __x;
  __half() = default;
  __half(float f) : __x(polyfuse::emu::fp16::float_to_half(f)) {}
  __half(double d) : __half(static_cast<float>(d)) {}
  __half(int i) : __half(static_cast<float>(i)) {}
  operator float() const { return polyfuse::emu::fp16::half_to_float(__x); }
};

struct __nv_bfloat16 {
  unsigned short __x;
  __nv_bfloat16() = default;
  __nv_bfloat16(float f) : __x(polyfuse::emu::fp16::float_to_bfloat16(f)) {}
  __nv_bfloat16(double d) : __nv_bfloat16(static_cast<float>(d)) {}
  __nv_bfloat16(int i) : __nv_bfloat16(static_cast<float>(i)) {}
  operator float() const { return polyfuse::emu::fp16::bfloat16_to_float(__x); }
};

struct __half2 {
  __half x, y;
};
struct __nv_bfloat162 {
  __nv_bfloat16 x, y;
};
using half = __half;
using half2 = __half2;
using nv_bfloat16 = __nv_bfloat16;

inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline float __half2float(__half h) { return static_cast<float>(h); }
inline unsigned short __half_as_ushort(__half h) { return h.__x; }
inline __half __ushort_as_half(unsigned short u) {
  __half h;
  h.__x = u;
  return h;
}
inline __half2 __floats2half2_rn(float a, float b) { return __half2{__half(a), __half(b)}; }
inline __half2 __float2half2_rn(float a) { return __half2{__half(a), __half(a)}; }
inline float2 __half22float2(__half2 h) { return float2{float(h.x), float(h.y)}; }
inline __half __hadd(__half a, __half b) { return __half(float(a) + float(b)); }
inline __half __hsub(__half a, __half b) { return __half(float(a) - float(b)); }
inline __half __hmul(__half a, __half b) { return __half(float(a) * float(b)); }
inline __half __hdiv(__half a, __half b) { return __half(float(a) / float(b)); }
inline __half __hneg(__half a) { return __ushort_as_half(static_cast<unsigned short>(a.__x ^ 0x8000u)); }
inline __half __hmax(__half a, __half b) { return float(a) < float(b) ? b : a; }
inline __half __hmin(__half a, __half b) { return float(b) < float(a) ? b : a; }

inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline float __bfloat162float(__nv_bfloat16 b) { return static_cast<float>(b); }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 b) { return b.__x; }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short u) {
  __nv_bfloat16 b;
  b.__x = u;
  return b;
}
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) {
  return __nv_bfloat162{__nv_bfloat16(a), __nv_bfloat16(b)};
}

// Arithmetic and comparison operators, computed in float and rounded back (as on sm_53+).
#define POLYFUSE_EMU_16BIT_OPS(T)                                                         \
  inline T operator+(T a, T b) { return T(float(a) + float(b)); }                         \
  inline T operator-(T a, T b) { return T(float(a) - float(b)); }                         \
  inline T operator*(T a, T b) { return T(float(a) * float(b)); }                         \
  inline T operator/(T a, T b) { return T(float(a) / float(b)); }                         \
  inline T operator-(T a) { return T(-float(a)); }                                        \
  inline T& operator+=(T& a, T b) { return a = a + b; }                                   \
  inline T& operator-=(T& a, T b) { return a = a - b; }                                   \
  inline T& operator*=(T& a, T b) { return a = a * b; }                                   \
  inline T& operator/=(T& a, T b) { return a = a / b; }                                   \
  inline bool operator==(T a, T b) { return float(a) == float(b); }                       \
  inline bool operator!=(T a, T b) { return float(a) != float(b); }                       \
  inline bool operator<(T a, T b) { return float(a) < float(b); }                         \
  inline bool operator>(T a, T b) { return float(a) > float(b); }                         \
  inline bool operator<=(T a, T b) { return float(a) <= float(b); }                       \
  inline bool operator>=(T a, T b) { return float(a) >= float(b); }
POLYFUSE_EMU_16BIT_OPS(__half)
POLYFUSE_EMU_16BIT_OPS(__nv_bfloat16)
#undef POLYFUSE_EMU_16BIT_OPS
