// polyfuse device helpers: a thread's vector of a row in the memory-bound kernels of a plan.
// N consecutive elements of T (float, __half or __nv_bfloat16; N * sizeof(T) a multiple of 16,
// the address 16-byte aligned) moved with 128-bit accesses and converted to or from f32.
#pragma once

#include "pf_base.cuh"
#include "pf_memory.cuh"

namespace pf {

namespace detail {
// The 4 f32 (or 8 16-bit) elements of a chunk as floats; and the chunk of those floats.
PF_DEVICE void unpack_chunk(const Chunk16& c, float* out, const float*) {
  for (int i = 0; i < 4; ++i) out[i] = __uint_as_float(c.x[i]);
}
template <class T> PF_DEVICE void unpack_chunk(const Chunk16& c, float* out, const T*) {
  for (int i = 0; i < 8; ++i) out[i] = chunk_get<T>(c, i);
}
PF_DEVICE Chunk16 pack_chunk(const float* in, float*) {
  Chunk16 c;
  for (int i = 0; i < 4; ++i) c.x[i] = __float_as_uint(in[i]);
  return c;
}
template <class T> PF_DEVICE Chunk16 pack_chunk(const float* in, T*) {
  Chunk16 c;
  for (int i = 0; i < 4; ++i) c.x[i] = pack2<T>(in[2 * i], in[2 * i + 1]);
  return c;
}
}  // namespace detail

// out[0..N) = the N elements at p, as floats.
template <int N, class T> PF_DEVICE void ldg_floats(const T* p, float* out) {
  static_assert(N * sizeof(T) % 16 == 0, "ldg_floats moves whole 16-byte chunks");
  constexpr int per_chunk = 16 / sizeof(T);
  for (int c = 0; c < N / per_chunk; ++c) detail::unpack_chunk(ldg128(p + c * per_chunk), out + c * per_chunk, p);
}

// The N elements at p = in[0..N), rounded to T.
template <int N, class T> PF_DEVICE void stg_floats(T* p, const float* in) {
  static_assert(N * sizeof(T) % 16 == 0, "stg_floats moves whole 16-byte chunks");
  constexpr int per_chunk = 16 / sizeof(T);
  for (int c = 0; c < N / per_chunk; ++c) stg128(p + c * per_chunk, detail::pack_chunk(in + c * per_chunk, p));
}

}  // namespace pf
