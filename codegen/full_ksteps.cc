#include "codegen/full_ksteps.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "schedule/isl_raw.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

// The matmul whose statement the band schedules, or nullptr.
const MatmulStage* matmul_of(const isl::schedule_node_band& band, const KernelPlan& plan) {
  isl::union_set scheduled = band.get_partial_schedule().domain();
  for (const MatmulStage& mm : plan.matmuls)
    if (!scheduled.intersect(isl::union_set(scheduled.ctx(), "{ " + mm.dims.tuple_text() + " }")).is_empty()) return &mm;
  return nullptr;
}

isl::union_set isolate_option(isl::ctx ctx, int outer, std::int64_t k_extent, const GpuOptions& o) {
  std::vector<std::string> prefix;
  for (int i = 0; i < outer; ++i) prefix.push_back(fmt::format("i{}", i));
  // The k-step's tile is full, and so is the tile it prefetches, if it prefetches one.
  std::string full = fmt::format("{0} * k_step + {0} <= {1}", o.block.k, k_extent);
  // With a ring of S stages k-step i prefetches k-step i + S - 1.
  if (o.stages > 1)
    full += fmt::format(" and ({0} * k_step + {2} >= {1} or {0} * k_step + {3} <= {1})", o.block.k, k_extent,
                        (o.stages - 1) * o.block.k, o.stages * o.block.k);
  return isl::union_set(ctx, fmt::format("{{ isolate[[{}] -> [k_step]] : {} }}", fmt::join(prefix, ", "), full));
}

}  // namespace

isl::schedule isolate_full_ksteps(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& o) {
  isl::schedule_node root = schedule.root().map_descendant_bottom_up([&](isl::schedule_node node) {
    if (!node.isa<isl::schedule_node_mark>() || isl_raw::mark_name(node) != "kstep") return node;
    // The k-step band: below the mark, possibly under further marks ("prefetch").
    int depth = 1;
    isl::schedule_node child = node.child(0);
    for (; child.isa<isl::schedule_node_mark>(); ++depth) child = child.child(0);
    if (!child.isa<isl::schedule_node_band>()) return node;
    isl::schedule_node_band band = child.as<isl::schedule_node_band>();
    const MatmulStage* mm = matmul_of(band, plan);
    // Only for a bound K: with an unbound one the third copy of the k-loop costs the
    // default kernel its last registers (spills), for a check per chunk it saves.
    if (mm == nullptr || !mm->dims.k_extent || band.n_member() != 1) return node;
    if (mm->dims.k_extent->is_symbolic()) return node;
    int outer = static_cast<int>(band.prefix_schedule_multi_union_pw_aff().size());
    isl::schedule_node done = band.set_ast_build_options(isolate_option(node.ctx(), outer, mm->dims.k_extent->value, o));
    for (int i = 0; i < depth; ++i) done = done.parent();
    return done;
  });
  return root.schedule();
}

}  // namespace polyfuse
