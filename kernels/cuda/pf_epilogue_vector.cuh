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
#include "pf_row.cuh"

namespace pf {

template <int N, int NTHREADS, Check CHECK = Check::all, class T>
PF_DEVICE void stage_vector(void* dst, const T* vec, int valid, int tid) {
  constexpr int per = 16 / static_cast<int>(sizeof(T));  // elements per 16-byte chunk
  static_assert(N % per == 0, "a staged vector holds whole 16-byte chunks");
  float* out = static_cast<float*>(dst);
  for (int q = tid; q < N / per; q += NTHREADS) {
    const int first = q * per;
    const int n = !checks_cols(CHECK) ? per : valid - first >= per ? per : valid - first > 0 ? valid - first : 0;
    float v[per];
    if (n == per) {
      detail::unpack_chunk(ldg128(vec + first), v, vec);
    } else {
PF_UNROLL
      for (int e = 0; e < per; ++e) v[e] = to_float(ldg_pred(vec + first + e, e < n));
    }
PF_UNROLL
    for (int c = 0; c < per; c += 4)
      sts128(out + first + c, Chunk16{{__float_as_uint(v[c]), __float_as_uint(v[c + 1]), __float_as_uint(v[c + 2]),
                                       __float_as_uint(v[c + 3])}});
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
