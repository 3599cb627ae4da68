// polyfuse device helpers, Hopper: the shared-memory swizzles that TMA writes and wgmma reads
// (CUtensorMapSwizzle 32B/64B/128B; the "swizzle layout atoms" of PTX ISA 9.7.15.5.1.2
// "Shared Memory Matrix Layout", Table 38) and the canonical operand tiles built from them.
// pf_swizzle.cuh's xor16 is the mma.sync path's own swizzle; this one is the hardware's.
//
// Swizzle (a function of the byte address; the pattern repeats every 256/512/1024 bytes):
//   bits = 0, 1, 2, 3 for none, 32B, 64B, 128B
//   physical = offset XOR (((offset >> 7) & (2^bits - 1)) << 4)
// i.e. the 16-byte chunk index inside a span of 2^bits chunks is XORed with the index of the
// 128-byte line inside the pattern (CuTe's Swizzle<bits, 4, 3> on byte addresses). Offsets are
// relative to a tile base aligned to the pattern (1024 bytes: PF_DYNAMIC_SHARED_SM90).
//
// Canonical tiles of 16-bit elements (what one TMA box per atom column writes, and what the
// wgmma descriptors of pf_wgmma_desc.cuh describe). W = row_bytes(swizzle): 16 for none (the
// core-matrix row), else the swizzle span; a row holds W/2 elements.
//   K-major tile, mn_extent x k_extent, k contiguous (A row-major [m][k], B "col" [n][k]):
//       offset(mn, k) = (k / (W/2)) * mn_extent * W + mn * W + (k % (W/2)) * 2
//     = atoms of (mn_extent rows x W bytes), one per W/2 columns of k.
//   MN-major tile, mn contiguous (A col-major [k][m], B row-major [k][n]):
//       offset(mn, k) = (mn / (W/2)) * k_extent * W + k * W + (mn % (W/2)) * 2
//     = atoms of (k_extent rows x W bytes), one per W/2 columns of mn.
// Requirements: mn_extent and k_extent multiples of 8.
#pragma once

#include "pf_base.cuh"

namespace pf {
namespace sm90 {

// The order of CUtensorMapSwizzle (CU_TENSOR_MAP_SWIZZLE_NONE, _32B, _64B, _128B).
enum class Swizzle : int { none = 0, b32 = 1, b64 = 2, b128 = 3 };

// Operand storage order of a wgmma tile: k contiguous, or m/n contiguous.
enum class Major : int { k = 0, mn = 1 };

PF_DEVICE constexpr int swizzle_bits(Swizzle s) { return static_cast<int>(s); }
// Bytes of one swizzled row (the span): 16 (none: one core-matrix row), 32, 64, 128.
PF_DEVICE constexpr int row_bytes(Swizzle s) { return 16 << swizzle_bits(s); }
// Bytes after which the pattern repeats (the swizzle atom: 8 rows): 128, 256, 512, 1024.
PF_DEVICE constexpr int pattern_bytes(Swizzle s) { return 8 * row_bytes(s); }

// Physical byte offset of logical byte offset `offset` under swizzle `s`.
PF_DEVICE constexpr unsigned swizzle_offset(Swizzle s, unsigned offset) {
  return offset ^ (((offset >> 7) & ((1u << swizzle_bits(s)) - 1u)) << 4);
}

// Logical (unswizzled) byte offset of element (mn, k) of a canonical tile.
PF_DEVICE constexpr unsigned kmajor_logical(Swizzle s, int mn_extent, int mn, int k) {
  const int w = row_bytes(s), per_row = w / 2;
  return static_cast<unsigned>((k / per_row) * mn_extent * w + mn * w + (k % per_row) * 2);
}
PF_DEVICE constexpr unsigned mnmajor_logical(Swizzle s, int k_extent, int mn, int k) {
  const int w = row_bytes(s), per_row = w / 2;
  return static_cast<unsigned>((mn / per_row) * k_extent * w + k * w + (mn % per_row) * 2);
}

// Physical byte offset of element (mn, k) of a canonical tile of mn_extent x k_extent.
PF_DEVICE constexpr unsigned tile_offset(Major major, Swizzle s, int mn_extent, int k_extent, int mn, int k) {
  return swizzle_offset(s, major == Major::k ? kmajor_logical(s, mn_extent, mn, k) : mnmajor_logical(s, k_extent, mn, k));
}

// Bytes of a canonical tile (whole atom columns; a multiple of the row bytes).
PF_DEVICE constexpr unsigned tile_bytes(Major major, Swizzle s, int mn_extent, int k_extent) {
  const int per_row = row_bytes(s) / 2;
  const int columns = major == Major::k ? (k_extent + per_row - 1) / per_row : (mn_extent + per_row - 1) / per_row;
  const int rows = major == Major::k ? mn_extent : k_extent;
  return static_cast<unsigned>(columns * rows * row_bytes(s));
}

// The TMA box that fills one atom column of a canonical tile: {inner, outer} elements
// (inner = W/2 along the contiguous dimension, outer = all rows), and the byte offset of atom
// column j in the tile.
PF_DEVICE constexpr int box_inner(Swizzle s) { return row_bytes(s) / 2; }
PF_DEVICE constexpr unsigned atom_column_offset(Swizzle s, int rows, int j) {
  return static_cast<unsigned>(j * rows * row_bytes(s));
}

}  // namespace sm90
}  // namespace pf
