#include "schedule/output_tile.h"

#include <algorithm>
#include <fmt/format.h>

namespace polyfuse {
namespace {

// The power of two at or above `extent`, at least 32, at most `block`; `block` when `extent`
// is unbound or not smaller.
int fitted_extent(const Size& extent, int block) {
  if (extent.is_symbolic() || extent.value >= block) return block;
  int fitted = 32;
  while (fitted < extent.value) fitted *= 2;
  return std::min(fitted, block);
}

}  // namespace

PrologueTile output_block_tile(const KernelPlan& plan, const GpuOptions& options) {
  PrologueTile result{options, ""};
  const GpuOptions defaults = default_gpu_options(options.arch);
  if (options.block_chosen || !options.choose_warp || options.block != defaults.block || options.warp != defaults.warp ||
      options.split_k != 1 || options.mma != MmaShape::m16n8k16 || !(options.cluster == ClusterShape{}) ||
      plan.matmuls.empty())
    return result;
  int block_m = 0, block_n = 0;
  for (const StatementDims& dims : plan.all_statements()) {
    block_m = std::max(block_m, fitted_extent(dims.m_extent, options.block.m));
    block_n = std::max(block_n, fitted_extent(dims.n_extent, options.block.n));
  }
  if (block_m == options.block.m && block_n == options.block.n) return result;
  GpuOptions o = options;
  o.block.m = block_m;
  o.block.n = block_n;
  o.warp.m = std::min(64, block_m);
  o.warp.n = std::min(64, block_n);
  const MatmulStage& mm = plan.matmuls.front();
  result.options = o;
  result.why = fmt::format("block {} (the output rule, schedule/output_tile.h): the output is {} x {}, narrower than "
                           "the default block {}: a block as wide as it computes no padding",
                           to_string(o.block), mm.dims.m_extent.to_string(), mm.dims.n_extent.to_string(),
                           to_string(options.block));
  return result;
}

}  // namespace polyfuse
