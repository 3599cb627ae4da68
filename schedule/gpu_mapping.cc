#include "schedule/gpu_mapping.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frontend/diagnostics.h"
#include "schedule/isl_raw.h"
#include "schedule/marks.h"

namespace polyfuse {

std::vector<std::string> block_parameters(int batch_rank) {
  if (batch_rank == 0) return {"blockIdx_y", "blockIdx_x"};
  if (batch_rank == 1) return {"blockIdx_z", "blockIdx_y", "blockIdx_x"};
  std::vector<std::string> names;
  for (int i = 0; i < batch_rank; ++i) names.push_back(fmt::format("batch_{}", i));
  names.push_back("blockIdx_y");
  names.push_back("blockIdx_x");
  return names;
}

std::vector<std::string> warp_parameters() { return {"warp_y", "warp_x", "warp_k"}; }

// { S[...] : band(S) = (params...) } for the band below `mark`, plus `extra` constraints
// on the parameters (isl syntax, "" for none).
static isl::union_set mapping_filter(const isl::schedule_node& mark, const std::vector<std::string>& params,
                                     const std::string& extra) {
  isl::schedule_node_band band = mark.child(0).as<isl::schedule_node_band>();
  unsigned members = band.n_member();
  PF_INTERNAL_CHECK(members <= params.size(), "band has more members than mapped parameters");
  std::vector<std::string> used(params.begin(), params.begin() + members), vars, equalities;
  for (unsigned i = 0; i < members; ++i) {
    vars.push_back(fmt::format("v{}", i));
    equalities.push_back(fmt::format("v{} = {}", i, used[i]));
  }
  if (!extra.empty()) equalities.push_back(extra);
  std::vector<std::string> all_params = used;
  if (!extra.empty()) all_params = params;
  isl::union_set values(mark.ctx(), fmt::format("[{}] -> {{ [{}] : {} }}", fmt::join(all_params, ", "),
                                                fmt::join(vars, ", "), fmt::join(equalities, " and ")));
  isl::union_map band_map = isl_raw::to_union_map(band.partial_schedule());
  return values.apply(band_map.reverse());
}

// Inserts a mapping filter below every mark named `name`.
static isl::schedule map_marks(const isl::schedule& schedule, std::string_view name,
                               const std::vector<std::string>& params, bool split_k) {
  isl::schedule current = schedule;
  size_t count = marks::find_all(current, name).size();
  for (size_t i = 0; i < count; ++i) {
    isl::schedule_node mark = *marks::find_nth(current, name, static_cast<int>(i));
    bool pointwise_under_split_k =
        split_k && mark.child(0).as<isl::schedule_node_band>().n_member() == 2;
    std::string extra = pointwise_under_split_k ? "warp_k = 0" : "";
    current = mark.child(0).insert_filter(mapping_filter(mark, params, extra)).schedule();
  }
  return current;
}

isl::schedule map_to_gpu(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& options) {
  isl::schedule current = map_marks(schedule, marks::block, block_parameters(plan.batch_rank()), false);
  return map_marks(current, marks::warp, warp_parameters(), options.split_k > 1);
}

}  // namespace polyfuse
