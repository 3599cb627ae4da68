// polyfuse device helpers, block layer: the order in which a 2-D grid of blocks walks the
// output tiles (rasterisation). Plain integer math, the same on every path.
//
//   const pf::Tile tile = pf::grouped_tile(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, 8);
//   // this block computes output tile (row tile.row, column tile.col)
//
//   for (int t = blockIdx.x; t < tiles; t += gridDim.x) {   // a persistent kernel (sm_90a)
//     const pf::Tile tile = pf::grouped_tile_at(t, tiles_n, tiles_m, 8);
//
// A persistent grid has at most one block per SM (the runtime's launch: min(SMs, tiles)); each
// block walks the linear tile numbers blockIdx.x, blockIdx.x + gridDim.x, ... in the same order.
//
// The hardware starts blocks in linear order (blockIdx.x fastest). Walking the tiles row by
// row, consecutive blocks share one row of A but read every column of B; grouped order
// (CUTLASS's threadblock swizzle, Triton's GROUP_SIZE_M) has consecutive blocks walk a group
// of `group` tile rows column by column, so the A rows of the group and a few B columns
// are what the blocks in flight read, and they stay in L2.
#pragma once

#include "pf_base.cuh"

namespace pf {

// An output tile: its row and column in the grid of tiles.
struct Tile {
  int row, col;
};

// The tile of block number `block` (0 .. cols * rows - 1, in launch order) of a grid of
// cols × rows tiles, in groups of `group` tile rows (group >= 1; 1 is row-major order, the
// hardware's own). Block number b goes to group b / (group * cols); within a group of g rows
// (the last group has rows % group rows when `group` does not divide `rows`) it takes column
// (b mod (g * cols)) / g, row (b mod (g * cols)) % g: down a column of the group, then the next.
// A bijection of the grid onto itself. The block number fits an int: a grid of 2^31 blocks
// would write more output tiles than any GPU's memory holds.
PF_DEVICE Tile grouped_tile_at(int block, int cols, int rows, int group) {
  group = imin(group, rows);  // a group larger than the grid is the whole grid
  const int group_blocks = group * cols;  // blocks of one whole group
  const int first_row = block / group_blocks * group;
  const int group_rows = imin(group, rows - first_row);
  const int in_group = block - first_row * cols;
  return Tile{first_row + in_group % group_rows, in_group / group_rows};
}

// The same for the block at (x, y) of a 2-D launch: block number y * cols + x.
PF_DEVICE Tile grouped_tile(int x, int y, int cols, int rows, int group) {
  return grouped_tile_at(y * cols + x, cols, rows, group);
}

}  // namespace pf
