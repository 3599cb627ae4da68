// polyfuse device helpers, Hopper tile-scheduler layer: which output tile a persistent block
// computes next (CUTLASS 3's "tile scheduler", kept apart from the main loop and the epilogue).
//
//   grouped_tile(tile, tiles_m, tiles_n, group)
//       the (m, n) coordinates of linear tile `tile` of a tiles_m x tiles_n grid of output tiles
//       walked in groups of `group` tile rows: inside a group the walk goes down a column of
//       tiles, then to the next column, so consecutive tiles share a B column tile and the
//       group's A row tiles stay in L2; the last group has the rows that are left. A bijection
//       of 0 .. tiles_m tiles_n - 1 onto the grid for every group >= 1.
//
// A persistent kernel walks `for (tile = blockIdx.x; tile < tiles; tile += gridDim.x)` with a
// grid of at most one block per SM (the runtime's launch: min(SMs, tiles)).
#pragma once

#include "pf_base.cuh"

namespace pf {
namespace sm90 {

struct TileCoord {
  int m, n;  // tile row and column
};

PF_DEVICE TileCoord grouped_tile(int tile, int tiles_m, int tiles_n, int group) {
  const int group_tiles = group * tiles_n;
  const int first_m = tile / group_tiles * group;
  const int rows = tiles_m - first_m < group ? tiles_m - first_m : group;
  const int in_group = tile % group_tiles;
  return TileCoord{first_m + in_group % rows, in_group / rows};
}

}  // namespace sm90
}  // namespace pf
