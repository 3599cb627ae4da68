#include "bench/gpu/tile_configs.h"

namespace polyfuse::bench {

const std::vector<TileConfig>& tuning_configs() { return tuning_candidates(CandidateSet::mma_sync); }

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
