#include "schedule/tiling.h"

#include <fmt/format.h>

#include "frontend/diagnostics.h"
#include "schedule/band_builder.h"
#include "schedule/marks.h"

namespace polyfuse {

isl::schedule_node statement_root(const isl::schedule& schedule, const std::string& statement) {
  auto block = marks::find_nth(schedule, marks::block, 0);
  PF_INTERNAL_CHECK(block.has_value(), "the tree has no block mark (run block_tile first)");
  return statement_subtree(marks::band_below(*block).child(0), statement);
}

isl::schedule_node find_statement_mark(const isl::schedule_node& start, const std::string& statement,
                                       std::string_view name) {
  isl::schedule_node node = start;
  while (true) {
    if (marks::is_mark(node, name)) return node;
    if (node.isa<isl::schedule_node_sequence>()) {
      node = statement_subtree(node, statement);
      continue;
    }
    PF_INTERNAL_CHECK(node.has_children(),
                      fmt::format("no mark '{}' above statement {}", name, statement));
    node = node.child(0);
  }
}

// The member expressions "<prefix>" applied to m and n of `dims`, e.g. "floor(m/128)".
static std::string mod(const std::string& index, int size) { return fmt::format("({}) mod {}", index, size); }
static std::string tile(const std::string& expr, int size) { return fmt::format("floor(({})/{})", expr, size); }

// The point band [m mod tm, n mod tn] and, when tk > 0, [.., k mod tk] of every statement
// in `group` (the matmuls of one k-loop, or one statement).
static isl::multi_union_pw_aff point_band(isl::ctx ctx, const std::vector<StatementDims>& group, int tm, int tn, int tk) {
  std::vector<BandMember> members(tk > 0 ? 3 : 2);
  for (const StatementDims& dims : group) {
    members[0].pieces.push_back({dims, mod(dims.m, tm)});
    members[1].pieces.push_back({dims, mod(dims.n, tn)});
    if (tk > 0) members[2].pieces.push_back({dims, mod(*dims.k, tk)});
  }
  return make_band(ctx, members);
}

// A band of one member per expression, the same for every statement in `group`: each
// expression is a function of a statement's dims.
template <typename Member>
static isl::multi_union_pw_aff group_band(isl::ctx ctx, const std::vector<StatementDims>& group, int count, Member member) {
  std::vector<BandMember> members(static_cast<size_t>(count));
  for (const StatementDims& dims : group)
    for (int i = 0; i < count; ++i) members[static_cast<size_t>(i)].pieces.push_back({dims, member(dims, i)});
  return make_band(ctx, members);
}

// The statement groups that share their bands below the block band: each k-loop's
// matmuls, then each epilogue statement alone.
static std::vector<std::vector<StatementDims>> band_groups(const KernelPlan& plan) {
  std::vector<std::vector<StatementDims>> groups;
  for (const MatmulGroup& group : plan.matmul_groups()) groups.push_back(group.dims());
  for (const PointwiseStage& pw : plan.epilogue) groups.push_back({pw.dims});
  return groups;
}

isl::schedule block_tile(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& o) {
  isl::ctx ctx = schedule.ctx();
  auto kernel = marks::find_nth(schedule, marks::kernel, 0);
  PF_INTERNAL_CHECK(kernel.has_value(), "block_tile expects the tree of initial_schedule");

  std::vector<BandMember> block(plan.batch_rank() + 2);
  for (const StatementDims& dims : plan.all_statements()) {
    for (int i = 0; i < plan.batch_rank(); ++i) block[i].pieces.push_back({dims, dims.batch[i]});
    block[plan.batch_rank()].pieces.push_back({dims, tile(dims.m, o.block.m)});
    block[plan.batch_rank() + 1].pieces.push_back({dims, tile(dims.n, o.block.n)});
  }
  isl::schedule_node band = marks::band_below(*kernel);
  band = replace_band(band.as<isl::schedule_node_band>(), make_band(ctx, block), true);
  isl::schedule current = band.insert_mark(std::string(marks::block)).schedule();

  for (const MatmulGroup& group : plan.matmul_groups()) {
    const std::string& s = group.leader().dims.statement;
    isl::schedule_node k_band = statement_root(current, s);
    PF_INTERNAL_CHECK(k_band.isa<isl::schedule_node_band>(), "matmul " + s + " has no k band");
    auto kstep = [&](const StatementDims& dims, int) { return tile(*dims.k, o.block.k); };
    isl::schedule_node band = replace_band(k_band.as<isl::schedule_node_band>(), group_band(ctx, group.dims(), 1, kstep), false);
    isl::schedule_node point = insert_band(band.child(0), point_band(ctx, group.dims(), o.block.m, o.block.n, o.block.k), false);
    current = point.parent().insert_mark(std::string(marks::kstep)).schedule();
  }
  for (const PointwiseStage& pw : plan.epilogue) {
    isl::schedule_node leaf = statement_root(current, pw.dims.statement);
    current = insert_band(leaf, point_band(ctx, {pw.dims}, o.block.m, o.block.n, 0), true).schedule();
  }
  return current;
}

isl::schedule_node_band innermost_band(const isl::schedule& schedule, const std::string& statement) {
  isl::schedule_node node = statement_root(schedule, statement);
  isl::schedule_node last;
  while (true) {
    if (node.isa<isl::schedule_node_band>()) last = node;
    if (!node.has_children()) break;
    node = node.isa<isl::schedule_node_sequence>() ? statement_subtree(node, statement) : node.child(0);
  }
  PF_INTERNAL_CHECK(!last.is_null(), "statement " + statement + " has no band");
  return last.as<isl::schedule_node_band>();
}

isl::schedule warp_tile(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& o) {
  isl::ctx ctx = schedule.ctx();
  isl::schedule current = schedule;
  for (const std::vector<StatementDims>& group : band_groups(plan)) {
    const StatementDims& first = group.front();
    int k = first.k ? o.block.k : 0;
    isl::schedule_node_band point = innermost_band(current, first.statement);
    auto warp = [&](const StatementDims& dims, int i) {
      return i == 0 ? tile(mod(dims.m, o.block.m), o.warp.m) : tile(mod(dims.n, o.block.n), o.warp.n);
    };
    isl::schedule_node warp_band = replace_band(point, group_band(ctx, group, 2, warp), true);
    isl::schedule_node inner = insert_band(warp_band.child(0), point_band(ctx, group, o.warp.m, o.warp.n, k), !first.k);
    current = inner.parent().insert_mark(std::string(marks::warp)).schedule();
  }
  return current;
}

isl::schedule split_k(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& o) {
  if (o.split_k == 1) return schedule;
  isl::ctx ctx = schedule.ctx();
  isl::schedule current = schedule;
  int slice = o.block.k / o.split_k;
  for (const MatmulGroup& group : plan.matmul_groups()) {
    const std::string& s = group.leader().dims.statement;
    isl::schedule_node mark = find_statement_mark(statement_root(current, s), s, marks::warp);
    auto warp = [&](const StatementDims& dims, int i) {
      if (i == 0) return tile(mod(dims.m, o.block.m), o.warp.m);
      if (i == 1) return tile(mod(dims.n, o.block.n), o.warp.n);
      return tile(mod(*dims.k, o.block.k), slice);
    };
    isl::schedule_node warp_band = replace_band(marks::band_below(mark), group_band(ctx, group.dims(), 3, warp), true);
    isl::schedule_node_band point = warp_band.child(0).as<isl::schedule_node_band>();
    current = replace_band(point, point_band(ctx, group.dims(), o.warp.m, o.warp.n, slice), false).schedule();
  }
  return current;
}

isl::schedule strip_mine_k(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& o) {
  isl::ctx ctx = schedule.ctx();
  isl::schedule current = schedule;
  TileShape mma = mma_tile(o.mma);
  for (const MatmulGroup& group : plan.matmul_groups()) {
    isl::schedule_node_band point = innermost_band(current, group.leader().dims.statement);
    auto k_slice = [&](const StatementDims& dims, int) { return tile(mod(*dims.k, o.warp.k), mma.k); };
    isl::schedule_node k_slices = replace_band(point, group_band(ctx, group.dims(), 1, k_slice), false);
    current = insert_band(k_slices.child(0), point_band(ctx, group.dims(), o.warp.m, o.warp.n, mma.k), false).schedule();
  }
  return current;
}

}  // namespace polyfuse
