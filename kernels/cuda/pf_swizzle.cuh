// polyfuse device helpers: the shared-memory swizzle (paper §V-A1) used by every
// register→shared store, cp.async tile copy and ldmatrix/vector fragment load.
//
// A shared tile has ROWS rows of COLS 16-bit elements (COLS = extent of the contiguous
// dimension); it is cut into 16-byte chunks of 8 elements, CPR = COLS/8 chunks per row.
// The linear chunk index L = row*CPR + chunk is permuted inside its aligned group of 8
// chunks (one 128-byte line = all 32 banks):
//
//     key      = (L / max(CPR, 8)) & 7          // the row if CPR >= 8, else the 128-byte line
//     physical = (L & ~7) | ((L & 7) ^ key)
//
// Why it is conflict-free (both properties are counted to zero by tests/kernels_cuda):
//  * stores: 8 consecutive lanes (one 128-bit phase) write 8 consecutive aligned chunks L,
//    which share one key, so they land on the 8 distinct 16-byte bank groups of a line;
//  * ldmatrix / fragment reads: the 8 row addresses of one 8x8 matrix are rows r..r+7
//    (r a multiple of 8) at one chunk column; across those rows (L & 7) ^ key takes 8
//    distinct values (CPR >= 8: key = row & 7; CPR in {1,2,4}: the rows fill 8/CPR lines'
//    worth of positions and the line key separates the rest).
// Requirements: COLS a multiple of 8 with CPR in {1, 2, 4} or a multiple of 8; tile base
// 128-byte aligned. Swizzle::none is the naive row-major layout (for comparison).
#pragma once

#include "pf_base.cuh"

namespace pf {

enum class Swizzle { none, xor16 };

template <int COLS> struct SwizzleCheck {
  static_assert(COLS % 8 == 0, "shared tile rows must hold whole 16-byte chunks");
  static_assert((COLS / 8) % 8 == 0 || COLS / 8 == 1 || COLS / 8 == 2 || COLS / 8 == 4,
                "chunks per row must be 1, 2, 4 or a multiple of 8");
  static constexpr int chunks_per_row = COLS / 8;
  static constexpr int key_period = chunks_per_row >= 8 ? chunks_per_row : 8;
};

// Physical chunk index of logical chunk `chunk` (0..COLS/8-1) of row `row`.
template <Swizzle S, int COLS> PF_DEVICE int tile_chunk(int row, int chunk) {
  using C = SwizzleCheck<COLS>;
  const int linear = row * C::chunks_per_row + chunk;
  if (S == Swizzle::none) return linear;
  const int key = (linear / C::key_period) & 7;
  return (linear & ~7) | ((linear & 7) ^ key);
}

// Whether moving ROWS rows (a multiple of 8) moves every element's offset by ROWS * COLS: the
// swizzle's key is the row modulo 8 (8 chunks a row or more), or the 128-byte line modulo 8
// and the rows span whole 8-line groups.
template <Swizzle S, int COLS, int ROWS> struct RowsShiftEvenly {
  static constexpr bool value =
      S == Swizzle::none ||
      (ROWS % 8 == 0 && (SwizzleCheck<COLS>::chunks_per_row >= 8 || ROWS * SwizzleCheck<COLS>::chunks_per_row % 64 == 0));
};

// Element offset (in 16-bit elements) of logical element (row, col) of the tile.
template <Swizzle S, int COLS> PF_DEVICE int tile_offset(int row, int col) {
  return tile_chunk<S, COLS>(row, col >> 3) * 8 + (col & 7);
}

// Byte address of logical element (row, col) of the tile at `base`.
template <Swizzle S, int COLS> PF_DEVICE unsigned char* tile_address(void* base, int row, int col) {
  return static_cast<unsigned char*>(base) + 2 * tile_offset<S, COLS>(row, col);
}
template <Swizzle S, int COLS>
PF_DEVICE const unsigned char* tile_address(const void* base, int row, int col) {
  return static_cast<const unsigned char*>(base) + 2 * tile_offset<S, COLS>(row, col);
}

}  // namespace pf
