// polyfuse device helpers, block layer: the order in which a 2-D grid of blocks walks the
// output tiles (rasterisation). Plain integer math, the same on every path.
//
//   const pf::Tile tile = pf::grouped_tile(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, 8);
//   // this block computes output tile (row tile.row, column tile.col)
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

// The tile of the block at (x, y) of a grid of cols × rows blocks, in groups of `group`
// tile rows (group >= 1; 1 is row-major order, the hardware's own). Block number
// b = y * cols + x goes to group b / (group * cols); within a group of g rows (the last
// group has rows % group rows when `group` does not divide `rows`) it takes column (b mod (g * cols)) / g, row (b mod (g * cols)) % g.
// A bijection of the grid onto itself. The block number fits an int: a grid of 2^31 blocks
// would write more output tiles than any GPU's memory holds.
PF_DEVICE Tile grouped_tile(int x, int y, int cols, int rows, int group) {
  group = imin(group, rows);  // a group larger than the grid is the whole grid
  const int block = y * cols + x;
  const int group_blocks = group * cols;  // blocks of one whole group
  const int first_row = block / group_blocks * group;
  const int group_rows = imin(group, rows - first_row);
  const int in_group = block - first_row * cols;
  return Tile{first_row + in_group % group_rows, in_group / group_rows};
}

}  // namespace pf
