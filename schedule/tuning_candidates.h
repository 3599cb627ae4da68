// The autotuner's candidate sets (runtime/api/autotune.h), one per kind of kernel — the mma.sync
// one is also the set polyfuse-bench sweeps for its "polyfuse_best" column
// (bench/gpu/tile_configs.h), so that the two never diverge.
//
// mma.sync kernels (sm_80 .. sm_90, and sm_90a where the TMA + wgmma loop does not apply):
//   default                       128x128x32, warp 64x64 (or fitted), 2 stages, group rule
//   block=128x256x32              wide block        block=256x128x32   tall block
//   block=64x64x32 warp=32x32x32  small blocks: more blocks for small problems
//   block=128x128x32 warp=64x32x32  8 warps instead of 4
//   block=128x128x64              longer k step
//   stages=3, stages=4            deeper cp.async rings
//   block=128x256x32 stages=3     wide block, deeper ring
//   group=1                       row-major block order (the default groups 8 tile rows)
// The sm_90a TMA + wgmma kernel (warp-specialised, persistent; it chooses its own tiles and
// as many ring stages as shared memory holds — a block or stages option would select the
// mma.sync loop instead):
//   default, schedule=cooperative, schedule=pingpong (each also with group=1)
//   cluster=2x1, cluster=1x2      two blocks sharing B (A) tiles by TMA multicast; the
//                                 compiler refuses clusters for a copying producer, two
//                                 matmuls or a batch (dropped, with the reason)
// A candidate the compiler refuses for a program (validate_gpu_options: shared memory,
// threads, registers; the register model of a fused epilogue) is reported as dropped.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "polyfuse/options.h"

namespace polyfuse {

// One configuration: the CompileOptions fields it sets (unset / 0: the compiler's default).
struct TuningCandidate {
  std::optional<TileShape> block;
  std::optional<TileShape> warp;
  int stages = 0;
  int split_k = 0;
  std::optional<int> group;
  std::optional<ConsumerSchedule> consumer_schedule;
  std::optional<ClusterShape> cluster;

  bool is_default() const {
    return !block && !warp && stages == 0 && split_k == 0 && !group && !consumer_schedule && !cluster;
  }
  // `base` with this candidate's fields set (its other fields, arch, f32_matmul, ..., kept).
  CompileOptions applied_to(const CompileOptions& base) const;
};

// "default", or "block=128x256x32 warp=64x32x32 stages=3 split_k=2 group=1 schedule=pingpong cluster=2x1"
// (only the fields set).
std::string to_string(const TuningCandidate& candidate);

// The kinds of kernel with a candidate set (codegen/main_loop_choice.h's MainLoop).
enum class CandidateSet { mma_sync, tma_wgmma };

// The set above for a kernel of that kind, the default first.
const std::vector<TuningCandidate>& tuning_candidates(CandidateSet kind);

// The tile options `options` sets that the autotuner chooses itself ("block, stages"), "" when
// none: an autotuned compile refuses them.
std::string tile_options_set(const CompileOptions& options);

}  // namespace polyfuse
