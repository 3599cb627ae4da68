#include "schedule/prologue_tile.h"

#include <fmt/format.h>

#include "schedule/copies.h"

namespace polyfuse {

PrologueTile prologue_block_tile(const KernelPlan& plan, const GpuOptions& options) {
  PrologueTile result{options, ""};
  const GpuOptions defaults = default_gpu_options(options.arch);
  if (options.block_chosen || !options.choose_warp || options.block != defaults.block || options.warp != defaults.warp ||
      options.split_k != 1 || options.mma != MmaShape::m16n8k16)
    return result;
  const std::vector<MatmulGroup> groups = plan.matmul_groups();
  if (groups.size() != 1) return result;
  const LandedPrologue landed = landed_prologue(groups.front());
  if (landed == LandedPrologue::none) return result;
  const MatmulStage& mm = groups.front().leader();
  const Size& other = landed == LandedPrologue::a ? mm.dims.n_extent : mm.dims.m_extent;
  if (!other.is_symbolic() && other.value < 256) return result;
  GpuOptions o = options;
  if (landed == LandedPrologue::a) o.block.n = 256;
  else o.block.m = 256;
  const char operand = landed == LandedPrologue::a ? 'A' : 'B';
  result.options = o;
  result.why = fmt::format("block {} (the prologue rule, schedule/prologue_tile.h): {}'s prologue runs on its landed tile, "
                           "and eight 64x64 warps map half as much of it each per k-step as four would",
                           to_string(o.block), operand);
  return result;
}

}  // namespace polyfuse
