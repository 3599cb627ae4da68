// polyfuse device helpers, warp layer: an accumulator tile written into a swizzled shared
// tile of 16-bit elements, where it is the A operand of the next matmul (back-to-back
// matmuls, issue 21: the first matmul's epilogue result never leaves the chip).
//
//   store_frags_to_tile<OutT, S, COLS>(acc, tile, row0, col0, cols_valid)
//
// The warp's m16n8k16 accumulator tile (rows row0.., columns col0.. of the shared tile, a
// ROWS x COLS tile of OutT = __half or __nv_bfloat16 in Swizzle S, pf_swizzle.cuh) converted
// to OutT and stored in the layout load_frag_a<Layout::row, S, COLS> reads: lane l writes
// the pairs (row l/4 (+8), columns 2*(l%4), +1) of each fragment as one 32-bit word, and
// columns >= cols_valid as zero (the next matmul's k padding must add nothing).
// Bank conflicts: the 32 words of one store are rows r..r+7 at one 16-byte chunk column,
// which the swizzle puts on 8 distinct bank groups (COLS/8 in {4} or a multiple of 8).
#pragma once

#include "pf_base.cuh"
#include "pf_memory.cuh"
#include "pf_mma_m16n8k16.cuh"
#include "pf_swizzle.cuh"

namespace pf {

template <class OutT, Swizzle S, int COLS, int MT, int NT>
PF_DEVICE void store_frags_to_tile(const AccTile16816<MT, NT>& acc, void* tile, int row0, int col0, int cols_valid) {
  const int lane = static_cast<int>(lane_id());
PF_UNROLL
  for (int i = 0; i < MT; ++i) {
PF_UNROLL
    for (int j = 0; j < NT; ++j) {
      const float* f = acc.frag(i, j);
      const int col = col0 + 8 * j + 2 * (lane & 3);
PF_UNROLL
      for (int h = 0; h < 2; ++h) {
        const int row = row0 + 16 * i + (lane >> 2) + 8 * h;
        const float lo = col < cols_valid ? f[2 * h] : 0.f;
        const float hi = col + 1 < cols_valid ? f[2 * h + 1] : 0.f;
        sts(reinterpret_cast<unsigned*>(tile_address<S, COLS>(tile, row, col)), pack2<OutT>(lo, hi));
      }
    }
  }
}

}  // namespace pf
