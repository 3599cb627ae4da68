#include "schedule/cpu_in_place.h"

#include "schedule/cpu_roles.h"

namespace polyfuse {
namespace {

// The read nodes of `expr` that read `tensor`.
int count_reads(const Expr& expr, const CpuPointwise& pointwise, const std::string& tensor) {
  int count = expr.kind == ExprKind::read && pointwise.reads.at(expr.read).tensor == tensor ? 1 : 0;
  for (const Expr& operand : expr.operands) count += count_reads(operand, pointwise, tensor);
  return count;
}

// `expr` of `owner`, its read nodes renumbered into `reads` (which gets the reads it makes).
Expr renumbered(const Expr& expr, const CpuPointwise& owner, std::vector<CpuAccess>& reads) {
  Expr copy = expr;
  if (copy.kind == ExprKind::read) {
    copy.read = static_cast<int>(reads.size());
    reads.push_back(owner.reads.at(expr.read));
  }
  for (Expr& operand : copy.operands) operand = renumbered(operand, owner, reads);
  return copy;
}

// `next`'s expression with its read of `first`'s result replaced by `first`'s expression, read
// nodes renumbered into `reads`.
Expr substitute(const Expr& expr, const CpuPointwise& first, const CpuPointwise& next, std::vector<CpuAccess>& reads) {
  if (expr.kind == ExprKind::read)
    return next.reads.at(expr.read).tensor == first.write.tensor ? renumbered(first.expr, first, reads)
                                                                 : renumbered(expr, next, reads);
  Expr copy = expr;
  for (Expr& operand : copy.operands) operand = substitute(operand, first, next, reads);
  return copy;
}

// Whether `next` updates in place the element `first` writes and reads it once, there.
bool composable(const CpuPlan& plan, const CpuPointwise& first, const CpuPointwise& next) {
  const std::string& tensor = first.write.tensor;
  if (first.in_epilogue || next.in_epilogue || next.write.tensor != tensor || !same_element(first.write, next.write) ||
      plan.tensor(tensor).type != ElementType::f32)
    return false;
  for (const CpuAccess& read : next.reads)
    if (read.tensor == tensor && !same_element(read, next.write)) return false;
  return count_reads(next.expr, next, tensor) == 1;
}

}  // namespace

void compose_in_place_updates(CpuPlan& plan) {
  for (CpuStage& stage : plan.stages) {
    std::vector<CpuPointwise>& list = stage.pointwise;
    for (std::size_t i = 1; i < list.size();) {
      const CpuPointwise& first = list[i - 1];
      const CpuPointwise& next = list[i];
      if (!composable(plan, first, next)) {
        ++i;
        continue;
      }
      CpuPointwise composed;
      composed.statement = first.statement + "_" + next.statement;
      composed.source = first.source + "; then " + next.source;
      composed.write = next.write;
      composed.expr = substitute(next.expr, first, next, composed.reads);
      list[i - 1] = std::move(composed);
      list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
}

}  // namespace polyfuse
