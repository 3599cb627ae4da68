#include "schedule/contraction.h"

#include <fmt/format.h>

#include "frontend/diagnostics.h"
#include "schedule/band_builder.h"
#include "schedule/marks.h"
#include "schedule/tiling.h"

namespace polyfuse {

isl::schedule contract_to_mma(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& o) {
  isl::ctx ctx = schedule.ctx();
  isl::schedule current = schedule;
  // The matmuls of one k-loop share every band so far: a sequence below the last one runs
  // each member's macro-MMAs in turn.
  for (const MatmulGroup& group : plan.matmul_groups()) {
    if (group.members.size() == 1) continue;
    isl::union_set_list filters(ctx, static_cast<int>(group.members.size()));
    for (const StatementDims& dims : group.dims()) filters = filters.add(statement_set(ctx, dims, ""));
    current = innermost_band(current, group.leader().dims.statement).insert_sequence(filters).schedule();
  }
  for (const StatementDims& dims : plan.all_statements()) {
    // A matmul instance is one macro-MMA; an epilogue instance one accumulator fragment.
    TileShape mma = dims.k ? mma_tile(o.mma) : accumulator_fragment(o.mma);
    std::string condition = fmt::format("({}) mod {} = 0 and ({}) mod {} = 0", dims.m, mma.m, dims.n, mma.n);
    if (dims.k) condition += fmt::format(" and ({}) mod {} = 0", *dims.k, mma.k);
    isl::schedule_node band = innermost_band(current, dims.statement);
    isl::schedule_node filter = band.insert_filter(statement_set(ctx, dims, condition));
    current = filter.insert_mark(std::string(dims.k ? marks::mma : marks::fragment)).schedule();
  }
  return current;
}

}  // namespace polyfuse
