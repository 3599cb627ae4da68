#include "schedule/tuning_candidates.h"

namespace polyfuse {

CompileOptions TuningCandidate::applied_to(const CompileOptions& base) const {
  CompileOptions options = base;
  options.autotune = false;
  options.block = block;
  options.warp = warp;
  options.stages = stages;
  options.split_k = split_k;
  options.group = group;
  options.consumer_schedule = consumer_schedule;
  options.cluster = cluster;
  return options;
}

std::string to_string(const TuningCandidate& candidate) {
  if (candidate.is_default()) return "default";
  std::string text;
  auto add = [&](const std::string& field) { text += (text.empty() ? "" : " ") + field; };
  if (candidate.block) add("block=" + polyfuse::to_string(*candidate.block));
  if (candidate.warp) add("warp=" + polyfuse::to_string(*candidate.warp));
  if (candidate.stages != 0) add("stages=" + std::to_string(candidate.stages));
  if (candidate.split_k != 0) add("split_k=" + std::to_string(candidate.split_k));
  if (candidate.group) add("group=" + std::to_string(*candidate.group));
  if (candidate.consumer_schedule) add("schedule=" + polyfuse::to_string(*candidate.consumer_schedule));
  if (candidate.cluster) add("cluster=" + polyfuse::to_string(*candidate.cluster));
  return text;
}

const std::vector<TuningCandidate>& tuning_candidates(CandidateSet kind) {
  using T = TileShape;
  using S = ConsumerSchedule;
  using C = ClusterShape;
  // {block, warp, stages, split_k, group, schedule, cluster}; unset and 0: the compiler's default.
  static const std::vector<TuningCandidate> mma_sync = {
      {},
      {T{128, 256, 32}, {}, 0, 0, {}, {}, {}},
      {T{256, 128, 32}, {}, 0, 0, {}, {}, {}},
      {T{64, 64, 32}, T{32, 32, 32}, 0, 0, {}, {}, {}},
      {T{128, 128, 32}, T{64, 32, 32}, 0, 0, {}, {}, {}},
      {T{128, 128, 64}, {}, 0, 0, {}, {}, {}},
      {T{128, 128, 32}, {}, 3, 0, {}, {}, {}},
      {T{128, 128, 32}, {}, 4, 0, {}, {}, {}},
      {T{128, 256, 32}, {}, 3, 0, {}, {}, {}},
      {{}, {}, 0, 0, 1, {}, {}},
  };
  static const std::vector<TuningCandidate> tma_wgmma = {
      {},
      {{}, {}, 0, 0, {}, S::cooperative, {}},
      {{}, {}, 0, 0, {}, S::pingpong, {}},
      {{}, {}, 0, 0, 1, {}, {}},
      {{}, {}, 0, 0, 1, S::cooperative, {}},
      {{}, {}, 0, 0, 1, S::pingpong, {}},
      {{}, {}, 0, 0, {}, {}, C{2, 1}},
      {{}, {}, 0, 0, {}, {}, C{1, 2}},
  };
  return kind == CandidateSet::tma_wgmma ? tma_wgmma : mma_sync;
}

std::string tile_options_set(const CompileOptions& options) {
  const std::pair<bool, const char*> set[] = {
      {options.block.has_value(), "block"}, {options.warp.has_value(), "warp"},   {options.mma.has_value(), "mma"},
      {options.split_k != 0, "split_k"},    {options.stages != 0, "stages"},      {options.group.has_value(), "group"},
      {options.consumer_schedule.has_value(), "consumer_schedule"}, {options.cluster.has_value(), "cluster"}};
  std::string names;
  for (const auto& [is_set, name] : set)
    if (is_set) names += (names.empty() ? "" : ", ") + std::string(name);
  return names;
}

}  // namespace polyfuse
