#include "schedule/initial_schedule.h"

#include "frontend/diagnostics.h"
#include "schedule/band_builder.h"
#include "schedule/marks.h"

namespace polyfuse {

isl::schedule initial_schedule(const KernelPlan& plan) {
  std::vector<StatementDims> statements = plan.all_statements();
  PF_INTERNAL_CHECK(!statements.empty(), "a kernel needs at least one statement");
  isl::ctx ctx = plan.domain.ctx();

  // Outer band: batch dims, then m and n, for every statement.
  std::vector<BandMember> outer(plan.batch_rank() + 2);
  for (const StatementDims& dims : statements) {
    for (int i = 0; i < plan.batch_rank(); ++i) outer[i].pieces.push_back({dims, dims.batch[i]});
    outer[plan.batch_rank()].pieces.push_back({dims, dims.m});
    outer[plan.batch_rank() + 1].pieces.push_back({dims, dims.n});
  }

  isl::schedule_node node = isl::schedule::from_domain(plan.domain).root().child(0);
  node = node.insert_mark(std::string(marks::kernel)).child(0);
  node = insert_band(node, make_band(ctx, outer), /*coincident=*/true).child(0);

  // One filter per k-loop (a group of matmuls sharing A) and per epilogue statement.
  std::vector<MatmulGroup> groups = plan.matmul_groups();
  const size_t children = groups.size() + plan.epilogue.size();
  if (children > 1) {
    isl::union_set_list filters(ctx, static_cast<int>(children));
    for (const MatmulGroup& group : groups) {
      isl::union_set members = isl::union_set::empty(ctx);
      for (const StatementDims& dims : group.dims()) members = members.unite(statement_set(ctx, dims, ""));
      filters = filters.add(members);
    }
    for (const PointwiseStage& pw : plan.epilogue) filters = filters.add(statement_set(ctx, pw.dims, ""));
    node = node.insert_sequence(filters);
  }
  for (const MatmulGroup& group : groups) {
    BandMember k;
    for (const StatementDims& dims : group.dims()) k.pieces.push_back({dims, *dims.k});
    isl::schedule_node target = statement_subtree(node, group.leader().dims.statement);
    target = insert_band(target, make_band(ctx, {k}), false);
    node = target.parent();                  // the outer band, or the filter
    if (children > 1) node = node.parent();  // back to the sequence
  }
  return node.schedule();
}

}  // namespace polyfuse
