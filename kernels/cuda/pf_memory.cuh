// polyfuse device helpers, layer 1: single memory instructions. Every global and shared
// access of a generated kernel goes through one of these, so that the emulator sees (and
// checks, and counts) all of them.
//
//   128-bit:   ldg128 / stg128 (ld.global.v4 / st.global.v4), lds128 / sts128, lds64 / sts64,
//              stg128_pred / sts128_pred (no access when the predicate is false)
//   element:   ldg / stg / lds / sts, and the predicated forms ldg_pred (zero-fill when the
//              predicate is false: no access happens) and stg_pred (masked store)
//   narrower:  ldg64 / ldg32 (ld.global.v2 / ld.global), stg64 / stg32
//   cp.async:  cp_async16 (cp.async.cg.shared.global, 16 bytes, zero-fill past src_bytes),
//              cp_async8 / cp_async4 (cp.async.ca, 8 / 4 bytes), each with the .L2::128B
//              prefetch hint (the L2 fetches the whole 128-byte line: the neighbouring
//              chunks of a tile row are the next copies; a hint, no change to the result),
//              cp_async_commit, cp_async_wait<N>, cp_async_wait_all (sm_80+; on older
//              targets a synchronous load + store; in the emulator asynchronous: the data
//              lands at the wait that covers it)
// Addresses of 128-bit accesses must be 16-byte aligned, of 64-bit ones 8-byte aligned, of
// 32-bit ones 4-byte aligned; both addresses of a cp.async to its copy size, also when it
// reads no source byte (the emulator checks it, as the hardware faults).
//
// Which of them a tile helper uses is decided when the kernel is generated, from what the
// generator knows of the tensors (see Check and Width).
#pragma once

#include "pf_base.cuh"

namespace pf {

#if PF_HOST_PATH
namespace detail {
inline void host_copy(void* dst, const void* src, unsigned bytes) {
  unsigned char* d = static_cast<unsigned char*>(dst);
  const unsigned char* s = static_cast<const unsigned char*>(src);
  for (unsigned i = 0; i < bytes; ++i) d[i] = s[i];
}
}  // namespace detail
#endif

// The bounds a tile access must check, known when the kernel is generated: a tile whose
// rows (columns) all lie inside the tensor needs no row (column) predicate.
enum class Check { none, rows, cols, all };
PF_DEVICE constexpr bool checks_rows(Check c) { return c == Check::rows || c == Check::all; }
PF_DEVICE constexpr bool checks_cols(Check c) { return c == Check::cols || c == Check::all; }

// The widest global access every row of a tile allows, in bytes: each row starts at a
// multiple of it (a 16-byte aligned tensor whose leading dimension times the element size
// is a multiple of it). by_address: unknown when the kernel was generated (a leading
// dimension given at run time); each 16-byte chunk then tests its own address.
enum class Width { by_address = 0, b16 = 2, b32 = 4, b64 = 8, b128 = 16 };

namespace detail {
PF_DEVICE bool aligned16(const void* p) { return (reinterpret_cast<unsigned long long>(p) & 15ull) == 0; }
PF_DEVICE const void* align_down16(const void* p) {
  return reinterpret_cast<const void*>(reinterpret_cast<unsigned long long>(p) & ~15ull);
}
}  // namespace detail

#if PF_DEVICE_PATH
PF_DEVICE unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
#endif

// ---- global, 128-bit -------------------------------------------------------------------

PF_DEVICE Chunk16 ldg128(const void* p) {
  Chunk16 v;
#if PF_DEVICE_PATH
  asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x[0]), "=r"(v.x[1]), "=r"(v.x[2]), "=r"(v.x[3])
               : "l"(p));
#elif PF_HOST_PATH
  ::pf_host::access(::pf_host::global_space, ::pf_host::load, p, 16);
  detail::host_copy(&v, p, 16);
#endif
  return v;
}

// 128-bit load that returns zeros (and touches no memory) when `pred` is false.
PF_DEVICE Chunk16 ldg128_pred(const void* p, bool pred) {
  Chunk16 v = {{0u, 0u, 0u, 0u}};
  if (pred) v = ldg128(p);
#if PF_HOST_PATH
  else ::pf_host::access(::pf_host::global_space, ::pf_host::load, p, 0);
#endif
  return v;
}

PF_DEVICE void stg128(void* p, const Chunk16& v) {
#if PF_DEVICE_PATH
  asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x[0]), "r"(v.x[1]),
               "r"(v.x[2]), "r"(v.x[3])
               : "memory");
#elif PF_HOST_PATH
  ::pf_host::access(::pf_host::global_space, ::pf_host::store, p, 16);
  detail::host_copy(p, &v, 16);
#endif
}

// ---- global, 64-bit and 32-bit (raw bits) ----------------------------------------------

PF_DEVICE unsigned long long ldg64(const void* p) {
#if PF_HOST_PATH
  ::pf_host::access(::pf_host::global_space, ::pf_host::load, p, 8);
  unsigned long long v;
  detail::host_copy(&v, p, 8);
  return v;
#else
  return *static_cast<const unsigned long long*>(p);
#endif
}
PF_DEVICE unsigned ldg32(const void* p) {
#if PF_HOST_PATH
  ::pf_host::access(::pf_host::global_space, ::pf_host::load, p, 4);
  unsigned v;
  detail::host_copy(&v, p, 4);
  return v;
#else
  return *static_cast<const unsigned*>(p);
#endif
}
PF_DEVICE void stg64(void* p, unsigned long long v) {
#if PF_HOST_PATH
  ::pf_host::access(::pf_host::global_space, ::pf_host::store, p, 8);
  detail::host_copy(p, &v, 8);
#else
  *static_cast<unsigned long long*>(p) = v;
#endif
}
PF_DEVICE void stg32(void* p, unsigned v) {
#if PF_HOST_PATH
  ::pf_host::access(::pf_host::global_space, ::pf_host::store, p, 4);
  detail::host_copy(p, &v, 4);
#else
  *static_cast<unsigned*>(p) = v;
#endif
}

// 128-bit store that does nothing when `pred` is false.
PF_DEVICE void stg128_pred(void* p, const Chunk16& v, bool pred) {
  if (pred) stg128(p, v);
#if PF_HOST_PATH
  else ::pf_host::access(::pf_host::global_space, ::pf_host::store, p, 0);
#endif
}

// ---- shared, 128-bit and 64-bit --------------------------------------------------------

PF_DEVICE Chunk16 lds128(const void* p) {
  Chunk16 v;
#if PF_DEVICE_PATH
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x[0]), "=r"(v.x[1]), "=r"(v.x[2]), "=r"(v.x[3])
               : "r"(shared_address(p)));
#elif PF_HOST_PATH
  ::pf_host::access(::pf_host::shared_space, ::pf_host::load, p, 16);
  detail::host_copy(&v, p, 16);
#endif
  return v;
}

PF_DEVICE void sts128(void* p, const Chunk16& v) {
#if PF_DEVICE_PATH
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(shared_address(p)), "r"(v.x[0]),
               "r"(v.x[1]), "r"(v.x[2]), "r"(v.x[3])
               : "memory");
#elif PF_HOST_PATH
  ::pf_host::access(::pf_host::shared_space, ::pf_host::store, p, 16);
  detail::host_copy(p, &v, 16);
#endif
}

// 128-bit shared store that does nothing when `pred` is false (one instruction for the
// whole warp either way: the emulator lines the lanes' accesses up as the hardware does).
PF_DEVICE void sts128_pred(void* p, const Chunk16& v, bool pred) {
  if (pred) sts128(p, v);
#if PF_HOST_PATH
  else ::pf_host::access(::pf_host::shared_space, ::pf_host::store, p, 0);
#endif
}

// Two 32-bit words (e.g. two f32 values, or four 16-bit values).
PF_DEVICE void lds64(const void* p, unsigned& lo, unsigned& hi) {
#if PF_DEVICE_PATH
  asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(lo), "=r"(hi) : "r"(shared_address(p)));
#elif PF_HOST_PATH
  ::pf_host::access(::pf_host::shared_space, ::pf_host::load, p, 8);
  unsigned w[2];
  detail::host_copy(w, p, 8);
  lo = w[0];
  hi = w[1];
#endif
}

PF_DEVICE void sts64(void* p, unsigned lo, unsigned hi) {
#if PF_DEVICE_PATH
  asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(shared_address(p)), "r"(lo), "r"(hi)
               : "memory");
#elif PF_HOST_PATH
  ::pf_host::access(::pf_host::shared_space, ::pf_host::store, p, 8);
  const unsigned w[2] = {lo, hi};
  detail::host_copy(p, w, 8);
#endif
}

// ---- element accesses (any trivially copyable T: float, __half, __nv_bfloat16, int) ------

template <class T> PF_DEVICE T ldg(const T* p) {
#if PF_HOST_PATH
  ::pf_host::access(::pf_host::global_space, ::pf_host::load, p, sizeof(T));
#endif
  return *p;
}
template <class T> PF_DEVICE void stg(T* p, T v) {
#if PF_HOST_PATH
  ::pf_host::access(::pf_host::global_space, ::pf_host::store, p, sizeof(T));
#endif
  *p = v;
}
// The position a gather reads (`LUT(I(b), d)`: I's value is a row of LUT) when
// 0 <= position < extent; otherwise the kernel stops, never reading outside the tensor:
// __trap() on a GPU, the emulator's error naming `tensor` and its 1-based `dimension` on the
// host path.
PF_DEVICE long long gather_index(long long position, long long extent, const char* tensor, int dimension) {
  if (position >= 0 && position < extent) return position;
#if PF_DEVICE_PATH
  (void)tensor;
  (void)dimension;
  __trap();
#elif PF_HOST_PATH
  ::pf_host::gather_out_of_range(tensor, dimension, position, extent);
#endif
  return 0;
}
// Predicated element load: T() (zero) and no access when `pred` is false.
template <class T> PF_DEVICE T ldg_pred(const T* p, bool pred) {
  T v = T();
  if (pred) v = ldg(p);
#if PF_HOST_PATH
  else ::pf_host::access(::pf_host::global_space, ::pf_host::load, p, 0);
#endif
  return v;
}
// Masked element store: nothing happens when `pred` is false.
template <class T> PF_DEVICE void stg_pred(T* p, T v, bool pred) {
  if (pred) stg(p, v);
#if PF_HOST_PATH
  else ::pf_host::access(::pf_host::global_space, ::pf_host::store, p, 0);
#endif
}
template <class T> PF_DEVICE T lds(const T* p) {
#if PF_HOST_PATH
  ::pf_host::access(::pf_host::shared_space, ::pf_host::load, p, sizeof(T));
#endif
  return *p;
}
template <class T> PF_DEVICE void sts(T* p, T v) {
#if PF_HOST_PATH
  ::pf_host::access(::pf_host::shared_space, ::pf_host::store, p, sizeof(T));
#endif
  *p = v;
}

// ---- cp.async (PTX ISA: Data Movement, cp.async; sm_80+) --------------------------------

// Copies `src_bytes` (0..16) bytes from global `src` to shared `dst` and zero-fills the
// rest of the 16 bytes. src_bytes == 0 reads no global memory.
PF_DEVICE void cp_async16(void* dst, const void* src, int src_bytes) {
#if PF_DEVICE_PATH && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;" ::"r"(shared_address(dst)), "l"(src),
               "r"(src_bytes)
               : "memory");
#elif PF_DEVICE_PATH
  Chunk16 v = {{0u, 0u, 0u, 0u}};
  if (src_bytes == 16) {
    v = ldg128(src);
  } else {
    for (int i = 0; i < src_bytes; ++i) reinterpret_cast<unsigned char*>(&v)[i] = static_cast<const unsigned char*>(src)[i];
  }
  sts128(dst, v);
#elif PF_HOST_PATH
  // The emulator keeps the copy pending until the wait that covers it (host_hooks.h).
  ::pf_host::async_copy(dst, src, 16, static_cast<unsigned>(src_bytes));
#endif
}

// The same with 8 and 4 bytes (cp.async.ca; `src` aligned to the size).
template <int BYTES> PF_DEVICE void cp_async_small(void* dst, const void* src, int src_bytes) {
  static_assert(BYTES == 8 || BYTES == 4, "cp.async.ca copies 4, 8 or 16 bytes");
#if PF_DEVICE_PATH && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], %2, %3;" ::"r"(shared_address(dst)), "l"(src), "n"(BYTES),
               "r"(src_bytes)
               : "memory");
#elif PF_DEVICE_PATH
  unsigned char v[BYTES] = {};
  for (int i = 0; i < src_bytes; ++i) v[i] = static_cast<const unsigned char*>(src)[i];
  for (int i = 0; i < BYTES; ++i) static_cast<unsigned char*>(dst)[i] = v[i];
#elif PF_HOST_PATH
  ::pf_host::async_copy(dst, src, BYTES, static_cast<unsigned>(src_bytes));
#endif
}
PF_DEVICE void cp_async8(void* dst, const void* src, int src_bytes) { cp_async_small<8>(dst, src, src_bytes); }
PF_DEVICE void cp_async4(void* dst, const void* src, int src_bytes) { cp_async_small<4>(dst, src, src_bytes); }

PF_DEVICE void cp_async_commit() {
#if PF_DEVICE_PATH && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#elif PF_HOST_PATH
  ::pf_host::async_commit();
#endif
}

// Waits until at most N committed groups are still pending.
template <int N> PF_DEVICE void cp_async_wait() {
#if PF_DEVICE_PATH && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#elif PF_HOST_PATH
  ::pf_host::async_wait(N);
#endif
}

// Commits the uncommitted copies and waits for every group (cp.async.wait_all).
PF_DEVICE void cp_async_wait_all() {
#if PF_DEVICE_PATH && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#elif PF_HOST_PATH
  ::pf_host::async_wait_all();
#endif
}

}  // namespace pf
