// polyfuse device helpers, block layer: the gathered copy of an implicit GEMM's A tile
// (a convolution's im2col matrix, which is never in memory; schedule/implicit_gemm.h).
//
//   rows = gather_rows<ROWS, COLS, NTHREADS>(row_of, row0, tid)     (gather_rows_f32: f32)
//   cp_async_gather_tile<S, ROWS, COLS, NTHREADS>(tile, rows, tap_of, at, k0, zero_src, tid)
//   cp_async_gather_tile_f32<S, ROWS, COLS, NTHREADS>(...)   (f32 elements, the TF32 loop)
//   gather_tile_elements(_f32)<S, ROWS, COLS, NTHREADS>(tile, rows, tap_of, at, k0, tid)
//
// copies the ROWS x COLS tile of 16-bit (f32) elements whose first element is (row0, k0) into a
// swizzled shared tile, in 16-byte chunks of 8 (4) elements distributed over the threads as
// cp_async_tile does (pf_block_copy.cuh; cp_async_tile_f32). Thread tid copies the same tile rows
// at every k-step, all at one column of the tile (GatherThread): gather_rows decomposes those
// rows once, before the k-loop (row_of(m): the output pixel of GEMM row m, its input coordinates
// and offset), and each copy decomposes its one column once (tap_of(kk): the filter tap and
// channel of GEMM column kk). at(row, tap) is the address of the chunk's 8 (4) contiguous
// elements, or nullptr where the chunk is zero — a tap outside the input (padding) or a row or
// column past the GEMM's end.
// A zero chunk is cp.async's zero-fill: source size 0, nothing read, the source operand the
// 16-byte aligned `zero_src` (never dereferenced). The addresses at() gives must be 16-byte
// aligned (the channel count a multiple of 8, of 4 for f32). Other channel counts (C = 3, a
// first layer) take gather_tile_elements: at(row, tap) per element, ordinary loads (zero for
// nullptr) and one 16-byte shared store per chunk, synchronous (the k-loop's barrier orders them
// like the cp.async copies).
#pragma once

#include "pf_base.cuh"
#include "pf_memory.cuh"
#include "pf_swizzle.cuh"

namespace pf {

// The chunks thread tid copies of a ROWS x COLS tile of BYTES-byte elements: rows
// row(tid, i), i < rows, every one at tile column column(tid).
template <int ROWS, int COLS, int NTHREADS, int BYTES>
struct GatherThread {
  static constexpr int per_chunk = 16 / BYTES, chunks_per_row = COLS / per_chunk;
  static_assert(COLS % per_chunk == 0, "tile rows must hold whole 16-byte chunks");
  static_assert(NTHREADS % chunks_per_row == 0, "a thread's chunks must share one column");
  static constexpr int rows_per_pass = NTHREADS / chunks_per_row;
  static_assert(ROWS % rows_per_pass == 0, "every thread copies as many rows");
  static constexpr int rows = ROWS / rows_per_pass;
  PF_DEVICE static int row(int tid, int i) { return tid / chunks_per_row + i * rows_per_pass; }
  PF_DEVICE static int column(int tid) { return per_chunk * (tid % chunks_per_row); }
};

// A thread's decomposed rows (what the generated row_of returns, one per row it copies).
template <class Row, int N>
struct GatherRows {
  Row row[N];
};

namespace detail {
template <int ROWS, int COLS, int NTHREADS, int BYTES, class RowOf>
PF_DEVICE auto gather_rows(const RowOf& row_of, int row0, int tid) {
  using T = GatherThread<ROWS, COLS, NTHREADS, BYTES>;
  GatherRows<decltype(row_of(0)), T::rows> rows;
PF_UNROLL
  for (int i = 0; i < T::rows; ++i) rows.row[i] = row_of(row0 + T::row(tid, i));
  return rows;
}

template <Swizzle S, int ROWS, int COLS, int NTHREADS, int BYTES, class Rows, class TapOf, class At>
PF_DEVICE void cp_async_gather_chunks(void* tile, const Rows& rows, const TapOf& tap_of, const At& at, int k0,
                                      const void* zero_src, int tid) {
  using T = GatherThread<ROWS, COLS, NTHREADS, BYTES>;
  const int column = T::column(tid);
  const auto tap = tap_of(k0 + column);  // this k-step's filter tap and channel: once for all the rows
PF_UNROLL
  for (int i = 0; i < T::rows; ++i) {
    // the swizzle of the tile's 16-bit view (COLS * BYTES / 2 columns), as cp_async_tile(_f32)
    unsigned char* dst =
        static_cast<unsigned char*>(tile) + 16 * tile_chunk<S, COLS * BYTES / 2>(T::row(tid, i), column / T::per_chunk);
    const void* src = at(rows.row[i], tap);
    if (src) cp_async16(dst, src, 16);
    else cp_async16(dst, align_down16(zero_src), 0);
  }
}

// The same tile element by element, for channels that are not whole 16-byte chunks (C = 3):
// tap_of per column of the thread's chunk, at(row, tap) the address of one element (nullptr:
// zero); ordinary loads, each chunk one 16-byte shared store.
template <Swizzle S, int ROWS, int COLS, int NTHREADS, int BYTES, class Rows, class TapOf, class At>
PF_DEVICE void gather_elements(void* tile, const Rows& rows, const TapOf& tap_of, const At& at, int k0, int tid) {
  using T = GatherThread<ROWS, COLS, NTHREADS, BYTES>;
  const int column = T::column(tid);
  decltype(tap_of(0)) taps[T::per_chunk];
PF_UNROLL
  for (int e = 0; e < T::per_chunk; ++e) taps[e] = tap_of(k0 + column + e);
PF_UNROLL
  for (int i = 0; i < T::rows; ++i) {
    Chunk16 v = {{0u, 0u, 0u, 0u}};
PF_UNROLL
    for (int e = 0; e < T::per_chunk; ++e) {
      const void* src = at(rows.row[i], taps[e]);
      if (!src) continue;
      if constexpr (BYTES == 4) v.x[e] = ldg(static_cast<const unsigned*>(src));
      else v.x[e >> 1] |= static_cast<unsigned>(ldg(static_cast<const unsigned short*>(src))) << (16 * (e & 1));
    }
    sts128(static_cast<unsigned char*>(tile) + 16 * tile_chunk<S, COLS * BYTES / 2>(T::row(tid, i), column / T::per_chunk),
           v);
  }
}
}  // namespace detail

// 16-bit elements (f16, bf16): chunks of 8.
template <int ROWS, int COLS, int NTHREADS, class RowOf>
PF_DEVICE auto gather_rows(const RowOf& row_of, int row0, int tid) {
  return detail::gather_rows<ROWS, COLS, NTHREADS, 2>(row_of, row0, tid);
}
template <Swizzle S, int ROWS, int COLS, int NTHREADS, class Rows, class TapOf, class At>
PF_DEVICE void cp_async_gather_tile(void* tile, const Rows& rows, const TapOf& tap_of, const At& at, int k0,
                                    const void* zero_src, int tid) {
  detail::cp_async_gather_chunks<S, ROWS, COLS, NTHREADS, 2>(tile, rows, tap_of, at, k0, zero_src, tid);
}

template <Swizzle S, int ROWS, int COLS, int NTHREADS, class Rows, class TapOf, class At>
PF_DEVICE void gather_tile_elements(void* tile, const Rows& rows, const TapOf& tap_of, const At& at, int k0, int tid) {
  detail::gather_elements<S, ROWS, COLS, NTHREADS, 2>(tile, rows, tap_of, at, k0, tid);
}

// f32 elements (the TF32 main loop's tiles, pf_mma_tf32.cuh): chunks of 4.
template <int ROWS, int COLS, int NTHREADS, class RowOf>
PF_DEVICE auto gather_rows_f32(const RowOf& row_of, int row0, int tid) {
  return detail::gather_rows<ROWS, COLS, NTHREADS, 4>(row_of, row0, tid);
}
template <Swizzle S, int ROWS, int COLS, int NTHREADS, class Rows, class TapOf, class At>
PF_DEVICE void cp_async_gather_tile_f32(void* tile, const Rows& rows, const TapOf& tap_of, const At& at, int k0,
                                        const void* zero_src, int tid) {
  detail::cp_async_gather_chunks<S, ROWS, COLS, NTHREADS, 4>(tile, rows, tap_of, at, k0, zero_src, tid);
}
template <Swizzle S, int ROWS, int COLS, int NTHREADS, class Rows, class TapOf, class At>
PF_DEVICE void gather_tile_elements_f32(void* tile, const Rows& rows, const TapOf& tap_of, const At& at, int k0,
                                        int tid) {
  detail::gather_elements<S, ROWS, COLS, NTHREADS, 4>(tile, rows, tap_of, at, k0, tid);
}

}  // namespace pf
