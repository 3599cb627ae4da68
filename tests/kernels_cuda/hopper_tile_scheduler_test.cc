// grouped_tile (kernels/cuda/pf_tile_scheduler_sm90.cuh), the persistent kernel's tile order,
// evaluated on the host: a bijection of the tiles onto the grid for every grid and group size,
// in the order it promises (down the column of a group of tile rows, then the next column; the
// last group keeps the rows that are left).
#include "polyfuse_emu/cuda_emulation.h"
#include "pf_tile_scheduler_sm90.cuh"

#include <gtest/gtest.h>

#include <vector>

namespace {
using pf::sm90::grouped_tile;
using pf::sm90::TileCoord;

TEST(HopperTileScheduler, GroupedOrderCoversEveryTileOnce) {
  for (int tiles_m = 1; tiles_m <= 13; ++tiles_m)
    for (int tiles_n = 1; tiles_n <= 11; ++tiles_n)
      for (int group : {1, 2, 3, 8, 16}) {
        std::vector<int> seen(static_cast<std::size_t>(tiles_m * tiles_n), 0);
        for (int tile = 0; tile < tiles_m * tiles_n; ++tile) {
          const TileCoord c = grouped_tile(tile, tiles_m, tiles_n, group);
          ASSERT_TRUE(c.m >= 0 && c.m < tiles_m && c.n >= 0 && c.n < tiles_n)
              << tiles_m << "x" << tiles_n << " group " << group << ": tile " << tile << " -> (" << c.m << ", " << c.n << ")";
          ++seen[static_cast<std::size_t>(c.m * tiles_n + c.n)];
        }
        for (int s : seen) ASSERT_EQ(s, 1) << tiles_m << "x" << tiles_n << " group " << group;
      }
}

TEST(HopperTileScheduler, GroupedOrderWalksDownTheGroupsColumns) {
  // 5 x 3 tiles in groups of 2 rows: rows 0-1 column by column, then rows 2-3, then row 4.
  const TileCoord expected[] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2}, {2, 0}, {3, 0},
                                {2, 1}, {3, 1}, {2, 2}, {3, 2}, {4, 0}, {4, 1}, {4, 2}};
  for (int tile = 0; tile < 15; ++tile) {
    const TileCoord c = grouped_tile(tile, 5, 3, 2);
    EXPECT_EQ(c.m, expected[tile].m) << "tile " << tile;
    EXPECT_EQ(c.n, expected[tile].n) << "tile " << tile;
  }
}

}  // namespace
