#include "schedule/cpu_parallel_stages.h"

#include <algorithm>

namespace polyfuse {
namespace {

// The operations of a pointwise expression: its nodes that are neither reads nor literals.
std::int64_t operation_count(const Expr& expr) {
  std::int64_t count = expr.kind == ExprKind::read || expr.kind == ExprKind::constant ? 0 : 1;
  for (const Expr& operand : expr.operands) count += operation_count(operand);
  return count;
}

}  // namespace

std::int64_t stage_flops(const CpuStage& stage) {
  std::int64_t elements = stage.m_extent * stage.n_extent;
  for (std::int64_t extent : stage.batch_extents) elements *= extent;
  std::int64_t per_element = 0;
  for (const CpuMatmul& matmul : stage.matmuls) {
    std::int64_t reduction = matmul.k * matmul.reduce_batch;
    if (matmul.conv)
      for (std::size_t t = 0; t + 1 < matmul.conv->taps.size(); ++t) reduction *= matmul.conv->taps[t].extent;
    per_element += 2 * reduction;
  }
  for (const CpuPointwise& pointwise : stage.pointwise) per_element += std::max<std::int64_t>(1, operation_count(pointwise.expr));
  return elements * per_element;
}

void mark_parallel_stages(CpuPlan& plan, std::int64_t min_parallel_flops) {
  for (CpuStage& stage : plan.stages) {
    stage.flops = stage_flops(stage);
    stage.parallel = stage.flops >= min_parallel_flops;
  }
}

}  // namespace polyfuse
