// polyfuse device helpers, block layer: the gathered copy of an implicit GEMM's A tile
// (a convolution's im2col matrix, which is never in memory; schedule/implicit_gemm.h).
//
//   cp_async_gather_tile<S, ROWS, COLS, NTHREADS>(tile, at, row0, k0, zero_src, tid)
//   cp_async_gather_tile_f32<S, ROWS, COLS, NTHREADS>(...)   (f32 elements, the TF32 loop)
//
// copies the ROWS x COLS tile of 16-bit (f32) elements whose first element is (row0, k0) into a
// swizzled shared tile, in 16-byte chunks distributed over the threads as cp_async_tile does
// (pf_block_copy.cuh; cp_async_tile_f32). The chunk of row m, columns kk..kk+7 (kk..kk+3) comes
// from at(m, kk): the address of its 8 (4) contiguous elements (channels of one filter tap of
// one output pixel), or nullptr where the chunk is zero — a tap outside the input (padding) or
// a row or column past the GEMM's end.
// A zero chunk is cp.async's zero-fill: source size 0, nothing read, the source operand the
// 16-byte aligned `zero_src` (never dereferenced). The addresses at() gives must be 16-byte
// aligned (the channel count a multiple of 8, of 4 for f32).
#pragma once

#include "pf_base.cuh"
#include "pf_memory.cuh"
#include "pf_swizzle.cuh"

namespace pf {

namespace detail {
// The tile of ROWS x COLS elements of BYTES bytes each (16 / BYTES to a chunk).
template <Swizzle S, int ROWS, int COLS, int NTHREADS, int BYTES, class At>
PF_DEVICE void cp_async_gather_chunks(void* tile, const At& at, int row0, int k0, const void* zero_src, int tid) {
  constexpr int per_chunk = 16 / BYTES, chunks_per_row = COLS / per_chunk, chunks = ROWS * chunks_per_row;
  static_assert(COLS % per_chunk == 0, "tile rows must hold whole 16-byte chunks");
PF_UNROLL
  for (int it = 0; it < (chunks + NTHREADS - 1) / NTHREADS; ++it) {
    const int q = tid + it * NTHREADS;
    if (chunks % NTHREADS != 0 && q >= chunks) break;
    const int row = q / chunks_per_row, chunk = q % chunks_per_row;
    // the swizzle of the tile's 16-bit view (COLS * BYTES / 2 columns), as cp_async_tile(_f32)
    unsigned char* dst = static_cast<unsigned char*>(tile) + 16 * tile_chunk<S, COLS * BYTES / 2>(row, chunk);
    const void* src = at(row0 + row, k0 + per_chunk * chunk);
    if (src) cp_async16(dst, src, 16);
    else cp_async16(dst, align_down16(zero_src), 0);
  }
}
}  // namespace detail

// 16-bit elements (f16, bf16): chunks of 8.
template <Swizzle S, int ROWS, int COLS, int NTHREADS, class At>
PF_DEVICE void cp_async_gather_tile(void* tile, const At& at, int row0, int k0, const void* zero_src, int tid) {
  detail::cp_async_gather_chunks<S, ROWS, COLS, NTHREADS, 2>(tile, at, row0, k0, zero_src, tid);
}

// f32 elements (the TF32 main loop's tiles, pf_mma_tf32.cuh): chunks of 4.
template <Swizzle S, int ROWS, int COLS, int NTHREADS, class At>
PF_DEVICE void cp_async_gather_tile_f32(void* tile, const At& at, int row0, int k0, const void* zero_src, int tid) {
  detail::cp_async_gather_chunks<S, ROWS, COLS, NTHREADS, 4>(tile, at, row0, k0, zero_src, tid);
}

}  // namespace pf
