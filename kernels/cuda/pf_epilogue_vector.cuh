// polyfuse device helpers, block layer: an epilogue operand broadcast over the block tile
// (bias(n) along the columns, scale(m) along the rows), loaded once per block into shared
// memory as f32, then read by the epilogue on every accumulator fragment.
//
//   stage_vector<N, NTHREADS, CHECK>(dst, vec, valid, tid)
//       dst[0..N) = vec[0..N) as floats, element i >= valid zero (not read). The block's
//       threads load 16-byte chunks (8 16-bit or 4 f32 elements), one per thread: 128-bit
//       loads of whole chunks (`vec` is 16-byte aligned: a block tile's slice of a 16-byte
//       aligned tensor), element loads for the chunk a tile edge cuts (CHECK: whether an
//       edge can cut the slice, pf_memory.cuh). Every thread of the block calls it; the
//       values are visible to the other warps after the next __syncthreads.
//   load_staged_cols(t, vec, col0)     t(r, c) = vec[col0 + c]   (vec: a staged vector)
//   load_staged_rows(t, vec, row0)     t(r, c) = vec[row0 + r]
// `dst`/`vec` are 16-byte aligned shared memory; col0/row0 the fragment's first column/row
// within the block tile.
#pragma once

#include "pf_base.cuh"
#include "pf_memory.cuh"

namespace pf {

namespace detail {
// Element i of a chunk of T (f32, or a 16-bit type), as the bits of an f32.
template <class T> PF_DEVICE unsigned chunk_f32_bits(const Chunk16& c, int i) {
  if constexpr (sizeof(T) == 4) {
    return c.x[i];
  } else {
    return __float_as_uint(chunk_get<T>(c, i));
  }
}
}  // namespace detail

template <int N, int NTHREADS, Check CHECK = Check::all, class T>
PF_DEVICE void stage_vector(void* dst, const T* vec, int valid, int tid) {
  constexpr int per = 16 / static_cast<int>(sizeof(T));  // elements per 16-byte chunk
  static_assert(N % per == 0, "a staged vector holds whole 16-byte chunks");
  constexpr int chunks = N / per;
  float* out = static_cast<float*>(dst);
  // Every thread takes part in each round (a thread past the last chunk stores nothing), so
  // a warp's stores are single instructions.
PF_UNROLL
  for (int it = 0; it < (chunks + NTHREADS - 1) / NTHREADS; ++it) {
    const int q = tid + it * NTHREADS;
    const bool mine = q < chunks;
    const int first = mine ? q * per : 0;
    const int n = !mine ? 0 : !checks_cols(CHECK) ? per : valid - first >= per ? per : valid - first > 0 ? valid - first : 0;
    Chunk16 lo = {{0u, 0u, 0u, 0u}}, hi = {{0u, 0u, 0u, 0u}};  // elements 0..3 and 4..7 as f32
    if (n == per) {
      const Chunk16 c = ldg128(vec + first);
PF_UNROLL
      for (int e = 0; e < 4; ++e) lo.x[e] = detail::chunk_f32_bits<T>(c, e);
      if constexpr (per == 8) {
PF_UNROLL
        for (int e = 0; e < 4; ++e) hi.x[e] = detail::chunk_f32_bits<T>(c, 4 + e);
      }
    } else {
PF_UNROLL
      for (int e = 0; e < 4; ++e) lo.x[e] = __float_as_uint(to_float(ldg_pred(vec + first + e, e < n)));
      if constexpr (per == 8) {
PF_UNROLL
        for (int e = 0; e < 4; ++e) hi.x[e] = __float_as_uint(to_float(ldg_pred(vec + first + 4 + e, 4 + e < n)));
      }
    }
    if constexpr (per == 4) {
      sts128_pred(out + first, lo, mine);
    } else {
      // 32 bytes a thread: threads q and q + 4 of a quarter warp store their halves in
      // opposite order, so each 128-bit store instruction is conflict-free (element-wise
      // selects: a select of the structs would put them in local memory)
      const bool swap = ((q >> 2) & 1) != 0;
      Chunk16 a, b;
PF_UNROLL
      for (int e = 0; e < 4; ++e) {
        a.x[e] = swap ? hi.x[e] : lo.x[e];
        b.x[e] = swap ? lo.x[e] : hi.x[e];
      }
      sts128_pred(out + first + (swap ? 4 : 0), a, mine);
      sts128_pred(out + first + (swap ? 0 : 4), b, mine);
    }
  }
}

// Each lane's pairs of adjacent columns (plain loads: the compiler merges a pair into one
// 64-bit load and loads a column the fragment holds in two rows once).
template <class Tile> PF_DEVICE void load_staged_cols(Tile& t, const void* vec, int col0) {
  const unsigned lane = lane_id();
  const float* v = static_cast<const float*>(vec) + col0;
PF_UNROLL
  for (int i = 0; i < Tile::count; i += 2) {
    int r, c;
    Tile::coord(lane, i, r, c);
    t.v[i] = lds(v + c);
    t.v[i + 1] = lds(v + c + 1);
  }
}

// Both elements of a pair are in the same row: one shared load per pair.
template <class Tile> PF_DEVICE void load_staged_rows(Tile& t, const void* vec, int row0) {
  const unsigned lane = lane_id();
  const float* v = static_cast<const float*>(vec) + row0;
PF_UNROLL
  for (int i = 0; i < Tile::count; i += 2) {
    int r, c;
    Tile::coord(lane, i, r, c);
    t.v[i] = t.v[i + 1] = lds(v + r);
  }
}

}  // namespace pf
