// polyfuse device helpers, block layer: copies of a ROWS x COLS tile of 16-bit elements
// (f16/bf16) between global and shared memory by the NTHREADS threads of a block
// (paper §V-A), in 16-byte chunks distributed cyclically over the threads (chunk
// q = tid + it*NTHREADS is row q / (COLS/8), chunk column q % (COLS/8)), so consecutive
// threads read consecutive 16 bytes of a row: coalesced 128-bit global accesses.
//
//   load_tile_global     global → registers (ld.global.v4), between the two a prologue may
//   map_tile_regs        apply pointwise operations to the valid elements,
//   store_tile_shared    registers → swizzled shared tile (st.shared.v4),
//   cp_async_tile        global → swizzled shared tile directly (cp.async, sm_80+).
// Partial tiles: elements at rows >= rows_valid or columns >= cols_valid read as zero (no
// access). Chunks that are not 16-byte aligned in global memory (a leading dimension that
// is not a multiple of 8) fall back to element loads.
#pragma once

#include "pf_base.cuh"
#include "pf_memory.cuh"
#include "pf_swizzle.cuh"

namespace pf {

template <int ROWS, int COLS, int NTHREADS> struct TileRegs {
  static_assert(COLS % 8 == 0, "tile rows must hold whole 16-byte chunks");
  static constexpr int chunks_per_row = COLS / 8;
  static constexpr int chunks = ROWS * chunks_per_row;
  static constexpr int per_thread = (chunks + NTHREADS - 1) / NTHREADS;
  Chunk16 c[per_thread];
};

namespace detail {
// One chunk of 8 elements at row/col of a global tile, zero-filled outside the valid part.
PF_DEVICE Chunk16 load_chunk_global(const unsigned short* src, long long ld, int row, int col,
                                    int rows_valid, int cols_valid) {
  const unsigned short* p = src + row * ld + col;
  if (row >= rows_valid || col >= cols_valid) return ldg128_pred(p, false);
  Chunk16 v = {{0u, 0u, 0u, 0u}};
  if (col + 8 <= cols_valid && aligned16(p)) return ldg128(p);
  for (int e = 0; e < 8; ++e) {
    const unsigned bits = ldg_pred(p + e, col + e < cols_valid);
    v.x[e >> 1] |= bits << (16 * (e & 1));
  }
  return v;
}
}  // namespace detail

template <int ROWS, int COLS, int NTHREADS>
PF_DEVICE void load_tile_global(TileRegs<ROWS, COLS, NTHREADS>& regs, const void* src, long long ld,
                                int rows_valid, int cols_valid, int tid) {
  using R = TileRegs<ROWS, COLS, NTHREADS>;
PF_UNROLL
  for (int it = 0; it < R::per_thread; ++it) {
    const int q = tid + it * NTHREADS;
    if (R::chunks % NTHREADS != 0 && q >= R::chunks) break;
    regs.c[it] = detail::load_chunk_global(static_cast<const unsigned short*>(src), ld, q / R::chunks_per_row,
                                           8 * (q % R::chunks_per_row), rows_valid, cols_valid);
  }
}

// Applies f (float -> float) to every valid element held in the registers (element type T).
template <class T, int ROWS, int COLS, int NTHREADS, class F>
PF_DEVICE void map_tile_regs(TileRegs<ROWS, COLS, NTHREADS>& regs, F f, int rows_valid, int cols_valid, int tid) {
  using R = TileRegs<ROWS, COLS, NTHREADS>;
PF_UNROLL
  for (int it = 0; it < R::per_thread; ++it) {
    const int q = tid + it * NTHREADS;
    const int row = q / R::chunks_per_row, col = 8 * (q % R::chunks_per_row);
    if (q >= R::chunks || row >= rows_valid) continue;
    for (int e = 0; e < 8; ++e)
      if (col + e < cols_valid) chunk_set<T>(regs.c[it], e, f(chunk_get<T>(regs.c[it], e)));
  }
}

template <Swizzle S, int ROWS, int COLS, int NTHREADS>
PF_DEVICE void store_tile_shared(void* tile, const TileRegs<ROWS, COLS, NTHREADS>& regs, int tid) {
  using R = TileRegs<ROWS, COLS, NTHREADS>;
PF_UNROLL
  for (int it = 0; it < R::per_thread; ++it) {
    const int q = tid + it * NTHREADS;
    if (R::chunks % NTHREADS != 0 && q >= R::chunks) break;
    sts128(static_cast<unsigned char*>(tile) + 16 * tile_chunk<S, COLS>(q / R::chunks_per_row, q % R::chunks_per_row),
           regs.c[it]);
  }
}

// Global → swizzled shared tile with cp.async (commit/wait are the caller's). Partial
// chunks use cp.async's zero-fill; misaligned ones a synchronous element copy.
template <Swizzle S, int ROWS, int COLS, int NTHREADS>
PF_DEVICE void cp_async_tile(void* tile, const void* src, long long ld, int rows_valid, int cols_valid, int tid) {
  using R = TileRegs<ROWS, COLS, NTHREADS>;
  const unsigned short* s = static_cast<const unsigned short*>(src);
PF_UNROLL
  for (int it = 0; it < R::per_thread; ++it) {
    const int q = tid + it * NTHREADS;
    if (R::chunks % NTHREADS != 0 && q >= R::chunks) break;
    const int row = q / R::chunks_per_row, col = 8 * (q % R::chunks_per_row);
    unsigned char* dst = static_cast<unsigned char*>(tile) + 16 * tile_chunk<S, COLS>(row, col / 8);
    const unsigned short* p = s + row * ld + col;
    if (row >= rows_valid || col >= cols_valid) {
      cp_async16(dst, src, 0);
    } else if (detail::aligned16(p)) {
      const int n = cols_valid - col < 8 ? cols_valid - col : 8;
      cp_async16(dst, p, 2 * n);
    } else {
      sts128(dst, detail::load_chunk_global(s, ld, row, col, rows_valid, cols_valid));
    }
  }
}

}  // namespace pf
