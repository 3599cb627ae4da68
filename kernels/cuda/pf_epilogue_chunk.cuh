// polyfuse device helpers: chunks of E consecutive elements of a row, as floats, for the
// sm_90a epilogue (codegen/hopper_epilogue.h): each thread computes E consecutive columns of a
// staged accumulator row and moves them with 128-bit accesses.
//
//   lds_chunk(p, v)            E staged floats (p 16-byte aligned): E / 4 128-bit shared loads
//                              (for E = 8, the halves in an order free of bank conflicts)
//   ldg_chunk(p, v, count)     E elements of T (f32, f16, bf16) to floats: when count == E
//                              (p 16-byte aligned) 16 bytes a load; otherwise elements
//                              0 .. count - 1 one at a time and zeros after them
//   stg_chunk(p, v, count)     the same, storing: every element (128-bit stores) or the first
//                              `count` (nothing past them written)
#pragma once

#include "pf_base.cuh"
#include "pf_memory.cuh"

namespace pf {

namespace detail {
// Element i of a 16-byte chunk of T's, as float; and a chunk of T's from 16 / sizeof(T) floats.
template <class T> PF_DEVICE float chunk_element(const Chunk16& c, int i) {
  if constexpr (sizeof(T) == 4) return __uint_as_float(c.x[i]);
  else return chunk_get<T>(c, i);
}
template <class T> PF_DEVICE Chunk16 chunk_of(const float* v) {
  Chunk16 c;
  if constexpr (sizeof(T) == 4) {
PF_UNROLL
    for (int i = 0; i < 4; ++i) c.x[i] = __float_as_uint(v[i]);
  } else {
PF_UNROLL
    for (int i = 0; i < 4; ++i) c.x[i] = pack2<T>(v[2 * i], v[2 * i + 1]);
  }
  return c;
}
}  // namespace detail

template <int E> PF_DEVICE void lds_chunk(const float* p, float (&v)[E]) {
  static_assert(E % 4 == 0, "whole 16-byte pieces of floats");
  if constexpr (E == 8) {
    // Lanes 4..7 of each quarter warp (the lanes whose 16-byte loads share a phase) read their
    // second half first: the quarter's chunks are 32 bytes apart, so in order its first loads
    // would hit each bank twice; this way its eight loads cover the 32 banks once.
    const bool second_first = (lane_id() >> 2) & 1u;
    const Chunk16 a = lds128(p + (second_first ? 4 : 0));
    const Chunk16 b = lds128(p + (second_first ? 0 : 4));
PF_UNROLL
    for (int k = 0; k < 4; ++k) {
      v[k] = __uint_as_float(second_first ? b.x[k] : a.x[k]);
      v[4 + k] = __uint_as_float(second_first ? a.x[k] : b.x[k]);
    }
  } else {
PF_UNROLL
    for (int i = 0; i < E / 4; ++i) {
      const Chunk16 c = lds128(p + 4 * i);
PF_UNROLL
      for (int k = 0; k < 4; ++k) v[4 * i + k] = __uint_as_float(c.x[k]);
    }
  }
}

template <class T, int E> PF_DEVICE void ldg_chunk(const T* p, float (&v)[E], int count) {
  constexpr int per = 16 / static_cast<int>(sizeof(T));
  static_assert(E % per == 0, "whole 16-byte pieces");
  if (count == E) {
PF_UNROLL
    for (int i = 0; i < E / per; ++i) {
      const Chunk16 c = ldg128(p + per * i);
PF_UNROLL
      for (int k = 0; k < per; ++k) v[per * i + k] = detail::chunk_element<T>(c, k);
    }
  } else {
PF_UNROLL
    for (int j = 0; j < E; ++j) v[j] = to_float(ldg_pred(p + (j < count ? j : 0), j < count));
  }
}

template <class T, int E> PF_DEVICE void stg_chunk(T* p, const float (&v)[E], int count) {
  constexpr int per = 16 / static_cast<int>(sizeof(T));
  static_assert(E % per == 0, "whole 16-byte pieces");
  if (count == E) {
PF_UNROLL
    for (int i = 0; i < E / per; ++i) stg128(p + per * i, detail::chunk_of<T>(v + per * i));
  } else {
PF_UNROLL
    for (int j = 0; j < E; ++j) stg_pred(p + (j < count ? j : 0), from_float<T>(v[j]), j < count);
  }
}

}  // namespace pf
