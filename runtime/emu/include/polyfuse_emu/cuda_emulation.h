// The CUDA dialect for kernels compiled as ordinary C++ and run by the polyfuse emulator
// (runtime/emu). Include it first (g++ -include polyfuse_emu/cuda_emulation.h -x c++ k.cu):
// it defines POLYFUSE_EMU, the CUDA keywords, dim3 and the built-in variables
// threadIdx/blockIdx/blockDim/gridDim (per fiber), __syncthreads/__syncwarp (real
// barriers; divergence is an error; threads interleave by the emulator's schedule), warp
// shuffles and votes, __half/__nv_bfloat16, and the math the helpers use. Memory checks (bounds, alignment, pending cp.async, races: see
// emulator.h) and counters apply to accesses made through the kernels/cuda helpers
// (pf::ldg, pf::sts, pf::cp_async16, ...); plain C++ dereferences are not seen.
// `__shared__` variables become function statics: blocks run one after another, so that is
// per-block storage, but unchecked; generated kernels use PF_DYNAMIC_SHARED instead.
#pragma once

#define POLYFUSE_EMU 1

#include <math.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "polyfuse_emu/cuda_types.h"
#include "polyfuse_emu/fp16.h"
#include "host_hooks.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#define __align__(n) alignas(n)
#define __shared__ static
#define __constant__ static
#define __launch_bounds__(...)
#define __grid_constant__

namespace polyfuse::emu::detail {
struct ThreadCoords {
  uint3 thread_idx;
  uint3 block_idx;
  dim3 block_dim;
  dim3 grid_dim;
};
// The calling fiber's coordinates (valid inside an emulated kernel).
const ThreadCoords& coords();
// Block-wide barrier; `file`/`line` identify the __syncthreads call site.
void syncthreads(const char* file, unsigned line);
}  // namespace polyfuse::emu::detail

#define threadIdx (::polyfuse::emu::detail::coords().thread_idx)
#define blockIdx (::polyfuse::emu::detail::coords().block_idx)
#define blockDim (::polyfuse::emu::detail::coords().block_dim)
#define gridDim (::polyfuse::emu::detail::coords().grid_dim)
constexpr int warpSize = 32;

#define __syncthreads() ::polyfuse::emu::detail::syncthreads(__FILE__, __LINE__)

// All 32 lanes must arrive (only the full mask is emulated).
inline void __syncwarp(unsigned mask = 0xffffffffu) {
  (void)mask;
  ::pf_host::warp_exchange("__syncwarp", nullptr, 0);
}
inline void __threadfence() {}
inline void __threadfence_block() {}

template <class T> inline T __shfl_sync(unsigned, T v, int src, int width = 32) {
  const T* all = static_cast<const T*>(::pf_host::warp_exchange("__shfl_sync", &v, sizeof v));
  const int lane = static_cast<int>(::pf_host::lane_id());
  return all[(lane & ~(width - 1)) + (src & (width - 1))];
}
template <class T> inline T __shfl_xor_sync(unsigned, T v, int mask, int width = 32) {
  const T* all = static_cast<const T*>(::pf_host::warp_exchange("__shfl_xor_sync", &v, sizeof v));
  const int lane = static_cast<int>(::pf_host::lane_id());
  const int src = lane ^ mask;
  return (src & ~(width - 1)) == (lane & ~(width - 1)) ? all[src] : v;
}
template <class T> inline T __shfl_down_sync(unsigned, T v, unsigned delta, int width = 32) {
  const T* all = static_cast<const T*>(::pf_host::warp_exchange("__shfl_down_sync", &v, sizeof v));
  const int lane = static_cast<int>(::pf_host::lane_id());
  const int src = lane + static_cast<int>(delta);
  return (src & ~(width - 1)) == (lane & ~(width - 1)) ? all[src] : v;
}
template <class T> inline T __shfl_up_sync(unsigned, T v, unsigned delta, int width = 32) {
  const T* all = static_cast<const T*>(::pf_host::warp_exchange("__shfl_up_sync", &v, sizeof v));
  const int lane = static_cast<int>(::pf_host::lane_id());
  const int src = lane - static_cast<int>(delta);
  return src >= (lane & ~(width - 1)) ? all[src] : v;
}
inline unsigned __ballot_sync(unsigned, int predicate) {
  const int p = predicate != 0;
  const int* all = static_cast<const int*>(::pf_host::warp_exchange("__ballot_sync", &p, sizeof p));
  unsigned bits = 0;
  for (int l = 0; l < 32; ++l) bits |= static_cast<unsigned>(all[l]) << l;
  return bits;
}
inline int __all_sync(unsigned mask, int p) { return __ballot_sync(mask, p) == 0xffffffffu; }
inline int __any_sync(unsigned mask, int p) { return __ballot_sync(mask, p) != 0; }

template <class T> inline T __ldg(const T* p) {
  ::pf_host::access(::pf_host::global_space, ::pf_host::load, p, sizeof(T));
  return *p;
}
// Blocks run one at a time on one host thread, so atomics are plain read-modify-writes
// (reported as atomics: those of different blocks on one address are not a race).
template <class T> inline T atomicAdd(T* p, T v) {
  const unsigned char* shared = ::pf_host::dynamic_shared();
  const auto* byte = reinterpret_cast<const unsigned char*>(p);
  const bool in_shared = byte >= shared && byte < shared + ::pf_host::dynamic_shared_bytes();
  ::pf_host::atomic_access(in_shared ? ::pf_host::shared_space : ::pf_host::global_space, p, sizeof(T));
  const T old = *p;
  *p = old + v;
  return old;
}

inline unsigned __float_as_uint(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float __uint_as_float(unsigned u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline int __float_as_int(float f) { return static_cast<int>(__float_as_uint(f)); }
inline float __int_as_float(int i) { return __uint_as_float(static_cast<unsigned>(i)); }
inline float __expf(float x) { return expf(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline float __saturatef(float x) { return x < 0.f ? 0.f : (x > 1.f ? 1.f : x); }

inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a < b ? b : a; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a < b ? b : a; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a < b ? b : a; }
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }

// Run-time builds (polyfuse::emu::Module) append, for each kernel K:
//   extern "C" void polyfuse_emu_entry__K(void* const* params) { polyfuse_emu_invoke(K, params); }
//   extern "C" const char* polyfuse_emu_signature__K() { return polyfuse_emu_signature(K); }
// params follows cuLaunchKernel: params[i] points at the value of parameter i.
template <class... P> inline void polyfuse_emu_invoke(void (*kernel)(P...), void* const* params) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    kernel(*static_cast<std::remove_cv_t<std::remove_reference_t<P>>*>(params[I])...);
  }(std::index_sequence_for<P...>{});
}
namespace polyfuse::emu::detail {
template <class T> constexpr char parameter_kind() {
  if constexpr (std::is_pointer_v<T>) return 'p';
  else if constexpr (std::is_same_v<T, float>) return 'f';
  else if constexpr (std::is_same_v<T, double>) return 'd';
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 8) return 'l';
  else if constexpr (std::is_integral_v<T> && sizeof(T) <= 4) return 'i';
  // A CUtensorMap passed by value (`const __grid_constant__ pf::sm90::TensorMap`): 128 opaque bytes.
  else if constexpr (std::is_class_v<T> && sizeof(T) == 128 && alignof(T) == 64) return 'm';
  else return '?';
}
}  // namespace polyfuse::emu::detail
// Parameter kinds of a kernel: 'p' pointer, 'i' 32-bit integer, 'l' 64-bit integer,
// 'f' float, 'd' double, '?' other; e.g. "ppi".
template <class... P> inline const char* polyfuse_emu_signature(void (*)(P...)) {
  static const std::string kinds{::polyfuse::emu::detail::parameter_kind<std::remove_cv_t<P>>()...};
  return kinds.c_str();
}
