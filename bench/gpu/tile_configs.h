// The tile configurations polyfuse-bench tries for polyfuse's kernels: the compiler's
// default alone ("polyfuse_default") and the best of a small fixed set ("polyfuse_best").
//
// The set (10 configurations; empty fields are the compiler's default, which fits the
// warp tile to the register budget, e.g. 64x32 warps for Add(GEMM, GEMM)):
//   default                      128x128x32, warp 64x64x32 (or fitted), a ring of 2 stages
//   128x128x32 warp 64x32x32     8 warps instead of 4
//   128x256x32                   wide block
//   256x128x32                   tall block
//   64x64x32 warp 32x32x32       small blocks: more blocks for small problems
//   128x128x64                   longer k step
//   128x128x32 stages 1          no prefetch
//   128x128x32 stages 3, 4       deeper cp.async rings (issue 19: CUTLASS 2.x's choice)
//   128x128x32 split-K 2         two warps per output tile (with an epilogue, the splits
//                                are added before it)
// A configuration whose block tile does not divide M, N and K of a problem is skipped for
// it (the protocol compares full-tile configurations, as the paper does), and one the
// compiler rejects for an idiom (register budget) is reported once and skipped.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/gpu/sizes.h"
#include "polyfuse/gpu_target.h"

namespace polyfuse::bench {

// One tile configuration: the CompileOptions fields it sets (unset / 0: the default).
struct TileConfig {
  std::optional<TileShape> block;
  std::optional<TileShape> warp;
  int stages = 0;
  int split_k = 0;

  bool is_default() const { return !block && !warp && stages == 0 && split_k == 0; }
};

// "default", or "block=128x256x32 warp=64x32x32 stages=1 split_k=2" (only the fields set).
std::string to_string(const TileConfig& config);

// The set above, the default first.
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
