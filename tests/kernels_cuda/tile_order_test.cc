// pf::grouped_tile (kernels/cuda/pf_tile_order.cuh), the block order of generated kernels:
// a bijection of every grid onto itself for every group size (groups that do not divide the
// tile rows, group 1, groups larger than the grid), walking each group column by column.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "polyfuse_emu/cuda_emulation.h"
#include "pf_tile_order.cuh"

namespace {

// Every block of a cols × rows grid in launch order (x fastest), and the tile each computes.
std::vector<pf::Tile> walk(int cols, int rows, int group) {
  std::vector<pf::Tile> tiles;
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < cols; ++x) tiles.push_back(pf::grouped_tile(x, y, cols, rows, group));
  return tiles;
}

TEST(GroupedTile, IsABijectionOfEveryGrid) {
  for (int rows = 1; rows <= 19; ++rows)
    for (int cols = 1; cols <= 13; ++cols)
      for (int group : {1, 2, 3, 5, 8, 19, 20, 1000}) {
        std::vector<int> hits(static_cast<size_t>(rows * cols), 0);
        for (const pf::Tile& t : walk(cols, rows, group)) {
          ASSERT_TRUE(t.row >= 0 && t.row < rows && t.col >= 0 && t.col < cols)
              << "grid " << cols << "x" << rows << " group " << group << ": tile (" << t.row << ", " << t.col << ") outside";
          ++hits[static_cast<size_t>(t.row * cols + t.col)];
        }
        for (int h : hits) ASSERT_EQ(h, 1) << "grid " << cols << "x" << rows << " group " << group << ": a tile computed " << h << " times";
      }
}

TEST(GroupedTile, GroupOneIsTheLaunchOrder) {
  const std::vector<pf::Tile> tiles = walk(7, 5, 1);
  for (size_t b = 0; b < tiles.size(); ++b) {
    EXPECT_EQ(tiles[b].row, static_cast<int>(b) / 7);
    EXPECT_EQ(tiles[b].col, static_cast<int>(b) % 7);
  }
}

// 10 tile rows in groups of 4: rows 0-3 column by column, then 4-7, then the short group 8-9.
TEST(GroupedTile, WalksGroupsColumnByColumnAndShortensTheLast) {
  const int cols = 3, rows = 10;
  const std::vector<pf::Tile> tiles = walk(cols, rows, 4);
  std::vector<pf::Tile> expected;
  for (int first : {0, 4, 8}) {
    const int g = std::min(4, rows - first);
    for (int col = 0; col < cols; ++col)
      for (int row = first; row < first + g; ++row) expected.push_back({row, col});
  }
  ASSERT_EQ(tiles.size(), expected.size());
  for (size_t b = 0; b < tiles.size(); ++b) {
    EXPECT_EQ(tiles[b].row, expected[b].row) << "block " << b;
    EXPECT_EQ(tiles[b].col, expected[b].col) << "block " << b;
  }
}

}  // namespace
