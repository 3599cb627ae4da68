// prefetch: marks k-step bands for a ring of shared stages (declared in copies.h).
#include "schedule/copies.h"
#include "schedule/marks.h"
#include "schedule/tiling.h"

namespace polyfuse {

isl::schedule prefetch(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& options) {
  if (options.stages == 1) return schedule;
  isl::schedule current = schedule;
  for (const MatmulGroup& group : plan.matmul_groups()) {
    const std::string& s = group.leader().dims.statement;
    isl::schedule_node kstep = find_statement_mark(statement_root(current, s), s, marks::kstep);
    current = kstep.child(0).insert_mark(std::string(marks::prefetch)).schedule();
  }
  return current;
}

}  // namespace polyfuse
