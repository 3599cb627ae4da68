#include "schedule/cpu_parallel_stages.h"

#include <algorithm>

namespace polyfuse {

std::int64_t expr_operation_count(const Expr& expr) {
  std::int64_t count = expr.kind == ExprKind::read || expr.kind == ExprKind::constant ? 0 : 1;
  for (const Expr& operand : expr.operands) count += expr_operation_count(operand);
  return count;
}

namespace {

// Row blocks of one size (a stage of more than one): ceil(M / mc) blocks of ceil(M / blocks)
// rows rather than full blocks and a short last one (M = 392: 196 + 196, not 256 + 136), and, when the thread count is known,
// as many more as make the stage's blocks a multiple of it (M = 1568 in 8 blocks of 196, not 7
// of 256: 4 + 4 for 2 threads, not 4 + 3).
void balance_row_blocks(CpuStage& stage, int threads) {
  CpuBlocking& b = stage.blocking;
  if (b.mc <= 0 || stage.m_extent <= b.mc) return;  // one row block: the threads split the rest
  std::int64_t rows = (stage.m_extent + b.mc - 1) / b.mc;
  const std::int64_t others = stage_blocks(stage) / rows;  // batch x column blocks
  if (threads > 1)
    while ((rows * others) % threads != 0 && rows < stage.m_extent && rows < 4 * threads) ++rows;
  b.mc = (stage.m_extent + rows - 1) / rows;
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
  for (const CpuPointwise& pointwise : stage.pointwise) per_element += std::max<std::int64_t>(1, expr_operation_count(pointwise.expr));
  if (stage.matmuls.empty()) per_element += kCpuFlopsPerElement;  // pointwise only: its elements' loads and stores
  return elements * per_element;
}

std::int64_t stage_blocks(const CpuStage& stage) {
  const auto blocks_of = [](std::int64_t extent, std::int64_t block) { return block > 0 ? (extent + block - 1) / block : 1; };
  std::int64_t blocks = blocks_of(stage.m_extent, stage.blocking.mc) * blocks_of(stage.n_extent, stage.blocking.nc);
  for (std::int64_t extent : stage.batch_extents) blocks *= extent;
  return blocks;
}

void mark_parallel_stages(CpuPlan& plan, std::int64_t min_parallel_flops) {
  const int threads = plan.threads;  // 0 (OpenMP's default): not known here, no split
  constexpr std::int64_t smallest_block = 32;  // a multiple of every microkernel's width
  for (CpuStage& stage : plan.stages) {
    stage.flops = stage_flops(stage);
    if (stage.pad || stage.permute) {  // a copy: kCpuFlopsPerElement per element written
      std::int64_t elements = 1;
      for (std::int64_t extent : plan.tensor(stage.pad ? stage.pad->to : stage.permute->to).shape) elements *= extent;
      stage.flops = elements * kCpuFlopsPerElement;
    }
    if (stage.loop_nest) stage.flops = stage.loop_nest->flops;
    stage.parallel = stage.flops >= min_parallel_flops && (!stage.loop_nest || stage.loop_nest->serial.empty());
    if (!stage.parallel || stage.matmuls.empty() || stage.loop_nest || stage.pad || stage.permute) continue;
    CpuBlocking& b = stage.blocking;
    if (stage_blocks(stage) >= threads) {
      balance_row_blocks(stage, threads);
      continue;
    }
    // first the blocks down to the extents (the same single block), then halved
    while (b.nc / 2 >= smallest_block && b.nc / 2 >= stage.n_extent) b.nc /= 2;
    while (b.mc / 2 >= smallest_block && b.mc / 2 >= stage.m_extent) b.mc /= 2;
    while (stage_blocks(stage) < threads) {
      if (b.nc / 2 >= smallest_block && stage.n_extent > b.nc / 2) b.nc /= 2;
      else if (b.mc / 2 >= smallest_block && stage.m_extent > b.mc / 2) b.mc /= 2;
      else break;
    }
    balance_row_blocks(stage, threads);
  }
  // A copy below the threshold that a parallel stage reads: on the threads too, when it is not
  // tiny (their region is a few microseconds, the threads already awake for the next stage, and
  // each thread's rows go to its own cache).
  for (std::size_t i = 0; i < plan.stages.size(); ++i) {
    CpuStage& copy = plan.stages[i];
    if (copy.parallel || !(copy.pad || copy.permute) || copy.flops < kCpuMinParallelCopyElements * kCpuFlopsPerElement)
      continue;
    const std::string& to = copy.pad ? copy.pad->to : copy.permute->to;
    for (std::size_t j = i + 1; j < plan.stages.size() && !copy.parallel; ++j)
      if (plan.stages[j].parallel)
        for (const CpuMatmul& matmul : plan.stages[j].matmuls)
          if (matmul.a.tensor == to || matmul.b.tensor == to) copy.parallel = true;
  }
}

bool cpu_stage_shares_b(const CpuStage& stage) {
  if (stage.matmuls.size() != 1 || stage.m_name.empty() || stage.n_name.empty()) return false;
  const CpuMatmul& matmul = stage.matmuls.front();
  if (matmul.conv || std::find(matmul.b.dims.begin(), matmul.b.dims.end(), CpuDim::batch) != matmul.b.dims.end())
    return false;
  const std::int64_t rows = std::min(stage.blocking.mc, stage.m_extent);
  const std::int64_t cols = std::min(stage.blocking.nc, stage.n_extent);
  return stage.n_extent % cols == 0 && (stage.m_extent > rows || matmul.b_constant);
}

}  // namespace polyfuse
