// polyfuse device helpers, block layer: the gathered copy of an implicit GEMM's A tile
// (a convolution's im2col matrix, which is never in memory; schedule/implicit_gemm.h).
//
//   cp_async_gather_tile<S, ROWS, COLS, NTHREADS>(tile, at, row0, k0, zero_src, tid)
//
// copies the ROWS x COLS tile of 16-bit elements whose first element is (row0, k0) into a
// swizzled shared tile, in 16-byte chunks distributed over the threads as cp_async_tile does
// (pf_block_copy.cuh). The chunk of row m, columns kk..kk+7 comes from at(m, kk): the address of
// its 8 contiguous elements (8 channels of one filter tap of one output pixel), or nullptr where
// the chunk is zero — a tap outside the input (padding) or a row or column past the GEMM's end.
// A zero chunk is cp.async's zero-fill: source size 0, nothing read, the source operand the
// 16-byte aligned `zero_src` (never dereferenced). The addresses at() gives must be 16-byte
// aligned (the channel count a multiple of 8).
#pragma once

#include "pf_base.cuh"
#include "pf_memory.cuh"
#include "pf_swizzle.cuh"

namespace pf {

template <Swizzle S, int ROWS, int COLS, int NTHREADS, class At>
PF_DEVICE void cp_async_gather_tile(void* tile, const At& at, int row0, int k0, const void* zero_src, int tid) {
  static_assert(COLS % 8 == 0, "tile rows must hold whole 16-byte chunks");
  constexpr int chunks_per_row = COLS / 8, chunks = ROWS * chunks_per_row;
PF_UNROLL
  for (int it = 0; it < (chunks + NTHREADS - 1) / NTHREADS; ++it) {
    const int q = tid + it * NTHREADS;
    if (chunks % NTHREADS != 0 && q >= chunks) break;
    const int row = q / chunks_per_row, chunk = q % chunks_per_row;
    unsigned char* dst = static_cast<unsigned char*>(tile) + 16 * tile_chunk<S, COLS>(row, chunk);
    const void* src = at(row0 + row, k0 + 8 * chunk);
    if (src) cp_async16(dst, src, 16);
    else cp_async16(dst, detail::align_down16(zero_src), 0);
  }
}

}  // namespace pf
