// The autotuner's candidate sets (schedule/tuning_candidates.h): small, the default first,
// every candidate legal for its arch (validate_gpu_options), the TMA + wgmma set without the
// mma.sync loop's tile options.
#include <gtest/gtest.h>

#include <set>

#include "schedule/gpu_options.h"
#include "schedule/tuning_candidates.h"

namespace {
using namespace polyfuse;

TEST(TuningCandidates, EveryCandidateIsLegalAndTheSetsAreSmall) {
  for (const auto& [loop, arch] : {std::pair{CandidateSet::mma_sync, Arch::sm_80}, std::pair{CandidateSet::tma_wgmma, Arch::sm_90a}}) {
    const std::vector<TuningCandidate>& set = tuning_candidates(loop);
    ASSERT_FALSE(set.empty());
    EXPECT_LE(set.size(), 12u);
    EXPECT_TRUE(set.front().is_default());
    std::set<std::string> names;
    for (const TuningCandidate& c : set) {
      EXPECT_TRUE(names.insert(to_string(c)).second) << to_string(c);
      const CompileOptions o = c.applied_to(CompileOptions{});
      GpuChoices choices{arch,     o.block,  o.warp,
                         o.mma,    o.split_k, o.stages,
                         o.group,  o.consumer_schedule, F32Matmul::tf32,
                         o.cluster.value_or(ClusterShape{})};
      EXPECT_NO_THROW(validate_gpu_options(gpu_options_from_choices(choices), 2)) << to_string(c);
      if (loop == CandidateSet::tma_wgmma) {
        EXPECT_FALSE(c.block || c.warp || c.stages || c.split_k) << to_string(c);
      }
    }
  }
  EXPECT_EQ(to_string(TuningCandidate{TileShape{128, 256, 32}, {}, 3, 0, 1, ConsumerSchedule::pingpong, {}}),
            "block=128x256x32 stages=3 group=1 schedule=pingpong");
  EXPECT_EQ(to_string(TuningCandidate{{}, {}, 0, 0, {}, {}, ClusterShape{2, 1}}), "cluster=2x1");
  // a cluster is one of the options the autotuner chooses: set by the user, autotune refuses it
  CompileOptions clustered;
  clustered.cluster = ClusterShape{1, 2};
  EXPECT_EQ(tile_options_set(clustered), "cluster");
}

}  // namespace
