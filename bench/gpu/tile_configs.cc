#include "bench/gpu/tile_configs.h"

#include <cstdio>

namespace polyfuse::bench {

std::string to_string(const TileConfig& config) {
  if (config.is_default()) return "default";
  std::string text;
  auto add = [&](const std::string& field) { text += (text.empty() ? "" : " ") + field; };
  if (!config.block.empty()) add("block=" + config.block);
  if (!config.warp.empty()) add("warp=" + config.warp);
  if (config.stages != 0) add("stages=" + std::to_string(config.stages));
  if (config.split_k != 0) add("split_k=" + std::to_string(config.split_k));
  return text;
}

const std::vector<TileConfig>& tuning_configs() {
  // {block, warp, stages, split_k}; "" and 0: the compiler's default.
  static const std::vector<TileConfig> configs = {
      {"", "", 0, 0},
      {"128x128x32", "64x32x32", 0, 0},
      {"128x256x32", "", 0, 0},
      {"256x128x32", "", 0, 0},
      {"64x64x32", "32x32x32", 0, 0},
      {"128x128x64", "", 0, 0},
      {"128x128x32", "", 1, 0},
      {"128x128x32", "", 0, 2},
  };
  return configs;
}

BlockExtents block_extents(const TileConfig& config) {
  BlockExtents extents;
  if (config.block.empty()) return extents;
  long long m = 0, n = 0, k = 0;
  if (std::sscanf(config.block.c_str(), "%lldx%lldx%lld", &m, &n, &k) == 3) extents = {m, n, k};
  return extents;
}

bool fits(const TileConfig& config, const ProblemSize& size) {
  const BlockExtents block = block_extents(config);
  return size.m % block.m == 0 && size.n % block.n == 0 && size.k % block.k == 0;
}

std::vector<TileConfig> fitting_configs(const ProblemSize& size) {
  std::vector<TileConfig> result;
  for (const TileConfig& config : tuning_configs())
    if (fits(config, size)) result.push_back(config);
  return result;
}

}  // namespace polyfuse::bench
