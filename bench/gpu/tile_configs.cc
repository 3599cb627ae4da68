#include "bench/gpu/tile_configs.h"

namespace polyfuse::bench {

std::string to_string(const TileConfig& config) {
  if (config.is_default()) return "default";
  std::string text;
  auto add = [&](const std::string& field) { text += (text.empty() ? "" : " ") + field; };
  if (config.block) add("block=" + polyfuse::to_string(*config.block));
  if (config.warp) add("warp=" + polyfuse::to_string(*config.warp));
  if (config.stages != 0) add("stages=" + std::to_string(config.stages));
  if (config.split_k != 0) add("split_k=" + std::to_string(config.split_k));
  return text;
}

const std::vector<TileConfig>& tuning_configs() {
  // {block, warp, stages, split_k}; unset and 0: the compiler's default.
  using T = TileShape;
  static const std::vector<TileConfig> configs = {
      {{}, {}, 0, 0},
      {T{128, 128, 32}, T{64, 32, 32}, 0, 0},
      {T{128, 256, 32}, {}, 0, 0},
      {T{256, 128, 32}, {}, 0, 0},
      {T{64, 64, 32}, T{32, 32, 32}, 0, 0},
      {T{128, 128, 64}, {}, 0, 0},
      {T{128, 128, 32}, {}, 1, 0},
      {T{128, 128, 32}, {}, 3, 0},
      {T{128, 128, 32}, {}, 4, 0},
      {T{128, 128, 32}, {}, 0, 2},
  };
  return configs;
}

BlockExtents block_extents(const TileConfig& config) {
  if (!config.block) return BlockExtents{};
  return BlockExtents{config.block->m, config.block->n, config.block->k};
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
