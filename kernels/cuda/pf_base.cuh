// polyfuse device helpers, layer 0: platform selection, fragment storage types, lane
// identity, 16-bit conversions and dynamic shared memory.
//
// Every helper has two implementations selected here:
//   * device path (PF_DEVICE_PATH): nvcc/NVRTC with __CUDA_ARCH__ defined, inline PTX;
//   * host path   (PF_HOST_PATH):   g++ against the emulation header of runtime/emu
//     (which defines POLYFUSE_EMU and the CUDA dialect), calling kernels/cuda/host_hooks.h.
// The nvcc host pass sees neither and gets empty bodies (never called).
#pragma once

#include "host_hooks.h"

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#elif !defined(POLYFUSE_EMU)
#error "polyfuse helpers: compile with nvcc/NVRTC, or as C++ with the polyfuse_emu emulation header included first"
#endif

#if defined(__CUDA_ARCH__)
#define PF_DEVICE_PATH 1
#define PF_HOST_PATH 0
#elif defined(POLYFUSE_EMU)
#define PF_DEVICE_PATH 0
#define PF_HOST_PATH 1
#else
#define PF_DEVICE_PATH 0
#define PF_HOST_PATH 0
#endif

#define PF_DEVICE __device__ __forceinline__

// Loop unrolling hints (device compilers only): unroll fully, or keep the loop rolled.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define PF_UNROLL _Pragma("unroll")
#define PF_NO_UNROLL _Pragma("unroll 1")
#else
#define PF_UNROLL
#define PF_NO_UNROLL
#endif

// Dynamic shared memory, the only shared memory generated kernels use:
//   PF_DYNAMIC_SHARED(smem);   // unsigned char* smem, 128-byte aligned
// On the device it is `extern __shared__` storage; in the emulator the block's buffer,
// whose size is the launch's dynamic shared size (accesses beyond it are errors).
#if PF_HOST_PATH
#define PF_DYNAMIC_SHARED(name) unsigned char* const name = ::pf_host::dynamic_shared()
#else
#define PF_DYNAMIC_SHARED(name) extern __shared__ __align__(128) unsigned char name[]
#endif

namespace pf {

// Storage layout of an operand in memory: row-major (the last index is contiguous) or
// column-major. For A (M x K) row means [m][k]; for B (K x N) row means [k][n].
enum class Layout { row, col };

// Integer helpers for the index expressions of generated code (isl's AST operations
// fdiv_q, min and max).
PF_DEVICE int floordiv(int a, int b) { return (a >= 0 ? a : a - b + 1) / b; }
PF_DEVICE long long floordiv(long long a, long long b) { return (a >= 0 ? a : a - b + 1) / b; }
PF_DEVICE int imin(int a, int b) { return a < b ? a : b; }
PF_DEVICE int imax(int a, int b) { return a > b ? a : b; }

// Type equality (no <type_traits> on NVRTC without a standard library).
template <class A, class B> struct IsSame { static constexpr bool value = false; };
template <class A> struct IsSame<A, A> { static constexpr bool value = true; };

// Eight 16-bit values (f16 or bf16) in four 32-bit registers: the unit of every
// 128-bit load/store. Element 2*i is the low half of x[i].
struct __align__(16) Chunk16 {
  unsigned x[4];
};

// Lane index within the warp (PTX %laneid).
PF_DEVICE unsigned lane_id() {
#if PF_DEVICE_PATH
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
#elif PF_HOST_PATH
  return ::pf_host::lane_id();
#else
  return 0;
#endif
}

// Warp index within the block (linear thread index / 32).
PF_DEVICE unsigned warp_id() {
#if PF_DEVICE_PATH
  return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) / 32;
#elif PF_HOST_PATH
  return ::pf_host::warp_id();
#else
  return 0;
#endif
}

// ---- 16-bit element conversions (round to nearest even, like cvt.rn) -------------------

template <class T> struct ElementTraits;
template <> struct ElementTraits<__half> {
  PF_DEVICE static float to_float(unsigned short bits) { return __half2float(__ushort_as_half(bits)); }
  PF_DEVICE static unsigned short from_float(float v) { return __half_as_ushort(__float2half_rn(v)); }
};
template <> struct ElementTraits<__nv_bfloat16> {
  PF_DEVICE static float to_float(unsigned short bits) {
    return __bfloat162float(__ushort_as_bfloat16(bits));
  }
  PF_DEVICE static unsigned short from_float(float v) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(v));
  }
};

// Low (index 0) or high (index 1) 16-bit element of a packed register, as float.
template <class T> PF_DEVICE float unpack(unsigned reg, int index) {
  return ElementTraits<T>::to_float(static_cast<unsigned short>(index ? reg >> 16 : reg & 0xffffu));
}
// Packs two floats into one register of two 16-bit elements (lo = element 0).
template <class T> PF_DEVICE unsigned pack2(float lo, float hi) {
  return static_cast<unsigned>(ElementTraits<T>::from_float(lo)) |
         (static_cast<unsigned>(ElementTraits<T>::from_float(hi)) << 16);
}

// Element i (0..7) of a chunk, as float; and the store of one element.
template <class T> PF_DEVICE float chunk_get(const Chunk16& c, int i) { return unpack<T>(c.x[i >> 1], i & 1); }
template <class T> PF_DEVICE void chunk_set(Chunk16& c, int i, float v) {
  const unsigned bits = ElementTraits<T>::from_float(v);
  c.x[i >> 1] = (i & 1) ? ((c.x[i >> 1] & 0xffffu) | (bits << 16)) : ((c.x[i >> 1] & 0xffff0000u) | bits);
}

// Conversions between float and the output/operand element types of the helpers.
PF_DEVICE float to_float(float v) { return v; }
PF_DEVICE float to_float(__half v) { return __half2float(v); }
PF_DEVICE float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
// Integer tensors (int32, int64, uint8): the value as a float (exact up to 2^24).
PF_DEVICE float to_float(int v) { return static_cast<float>(v); }
PF_DEVICE float to_float(long long v) { return static_cast<float>(v); }
PF_DEVICE float to_float(unsigned char v) { return static_cast<float>(v); }
template <class T> struct FromFloat;
template <> struct FromFloat<float> { PF_DEVICE static float convert(float v) { return v; } };
template <> struct FromFloat<__half> { PF_DEVICE static __half convert(float v) { return __float2half_rn(v); } };
template <> struct FromFloat<__nv_bfloat16> {
  PF_DEVICE static __nv_bfloat16 convert(float v) { return __float2bfloat16_rn(v); }
};
// To an integer type: nearest integer (ties to even), saturated at the type's range, 0 for
// NaN (PTX's cvt.rni.sat; the reference's integer_stored).
template <class T> struct FromFloatInteger {
  PF_DEVICE static T convert(float v, double lowest, double highest) {
    if (v != v) return T(0);
    const double r = rint(static_cast<double>(v));
    return r <= lowest ? static_cast<T>(lowest) : r >= highest ? static_cast<T>(highest) : static_cast<T>(r);
  }
};
template <> struct FromFloat<int> {
  PF_DEVICE static int convert(float v) { return FromFloatInteger<int>::convert(v, -2147483648.0, 2147483647.0); }
};
template <> struct FromFloat<long long> {
  PF_DEVICE static long long convert(float v) {
    return v != v ? 0LL : v <= -9223372036854775808.0f ? (-9223372036854775807LL - 1)
                        : v >= 9223372036854775808.0f ? 9223372036854775807LL : static_cast<long long>(rint(v));
  }
};
template <> struct FromFloat<unsigned char> {
  PF_DEVICE static unsigned char convert(float v) { return FromFloatInteger<unsigned char>::convert(v, 0.0, 255.0); }
};
template <class T> PF_DEVICE T from_float(float v) { return FromFloat<T>::convert(v); }

}  // namespace pf
