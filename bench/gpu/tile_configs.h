// The tile configurations polyfuse-bench tries for polyfuse's kernels: the compiler's
// default alone ("polyfuse_default") and the best of a small fixed set ("polyfuse_best"): the
// autotuner's candidate set for mma.sync kernels (schedule/tuning_candidates.h, one definition
// for both; the list and why each is there is in that header), ten configurations, the default
// first. A configuration whose block tile does not divide M, N and K of a problem is skipped
// for it (the protocol compares full-tile configurations, as the paper does), and one the
// compiler rejects for an idiom (register budget) is reported once and skipped. The sm_90a TMA +
// wgmma kernel's own set (consumer schedule, block order) is what `--autotune` times there.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/gpu/sizes.h"
#include "polyfuse/gpu_target.h"
#include "schedule/tuning_candidates.h"

namespace polyfuse::bench {

// One tile configuration: the CompileOptions fields it sets (unset / 0: the default);
// to_string gives "default" or "block=128x256x32 warp=64x32x32 stages=3" (the fields set).
using TileConfig = TuningCandidate;

// The mma.sync candidate set, the default first.
const std::vector<TileConfig>& tuning_configs();

// The block tile's M, N, K extents (128x128x32 for the default).
struct BlockExtents {
  std::int64_t m = 128, n = 128, k = 32;
};
BlockExtents block_extents(const TileConfig& config);

// True when the block tile divides the problem's M, N and K.
bool fits(const TileConfig& config, const ProblemSize& size);

// The configurations of `tuning_configs()` that fit `size` (default first, if it fits).
std::vector<TileConfig> fitting_configs(const ProblemSize& size);

}  // namespace polyfuse::bench
