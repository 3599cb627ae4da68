#include "codegen/kernel_fit.h"

#include <algorithm>

#include <fmt/format.h>

#include "codegen/cuda_emitter.h"
#include "codegen/cuda_epilogue_vectors.h"
#include "codegen/register_model.h"
#include "frontend/diagnostics.h"

namespace polyfuse {

CudaKernelLayout fitted_layout(const Program& program, const KernelPlan& plan, GpuOptions& o, bool stage_vectors,
                               const std::vector<std::string>& chain_reads) {
  auto make = [&] {
    CudaKernelLayout l = cuda_kernel_layout(plan, o, epilogue_reads(program, plan, chain_reads));
    if (stage_vectors) stage_epilogue_vectors(program, plan, o, l);
    return l;
  };
  auto over = [&o](const CudaKernelLayout& l) { return l.register_model.total() - register_limit(o.arch, l.threads); };
  // the next smaller warp tile, if its block stays within the arch's threads
  auto halve = [&o] {
    GpuOptions next = o;
    if (next.warp.n >= next.warp.m && next.warp.n > 16) next.warp.n /= 2;
    else next.warp.m /= 2;
    const bool fits = threads_per_block(next) <= arch_limits(o.arch).max_threads_per_block;
    if (fits) o = next;
    return fits;
  };
  // the next smaller block tile (N, then M, down to 32), with the default warp tile for it
  auto halve_block = [&o] {
    if (o.block.n >= o.block.m && o.block.n >= 64) o.block.n /= 2;
    else if (o.block.m >= 64) o.block.m /= 2;
    else return false;
    o.warp.m = std::min(64, o.block.m);
    o.warp.n = std::min(64, o.block.n);
    return true;
  };
  CudaKernelLayout layout = make();
  while (over(layout) > 0 && o.choose_warp && (o.warp.m > 16 || o.warp.n > 16) && halve()) layout = make();
  // No warp tile of this block fits (several matmuls' accumulators over the block exceed the
  // register file): a block the user did not choose shrinks, and its warp tile again.
  while (over(layout) > 0 && o.choose_warp && !o.block_chosen && halve_block()) {
    layout = make();
    while (over(layout) > 0 && (o.warp.m > 16 || o.warp.n > 16) && halve()) layout = make();
  }
  validate_gpu_options(o, layout.f32_operands ? 4 : 2);
  const int shared_limit = arch_limits(o.arch).max_shared_bytes_per_block;
  if (layout.shared_bytes > shared_limit)
    throw UserError(fmt::format("def '{}': the shared tiles of its {} matmul(s) ({} stage(s) of block tile {}){} and the "
                                "accumulator reorder scratch need {} bytes of shared memory per block; {} allows {} ({} "
                                "bytes over): use a smaller block tile or fewer stages",
                                program.name, plan.matmuls.size(), o.stages, to_string(o.block),
                                layout.staged_vectors.empty() ? "" : ", the epilogue's vectors", layout.shared_bytes,
                                to_string(o.arch), shared_limit, layout.shared_bytes - shared_limit));
  if (over(layout) > 0) {
    // A smaller warp tile helps only while the block keeps within the arch's threads.
    GpuOptions smaller = o;
    if (smaller.warp.n > 16) smaller.warp.n /= 2;
    else smaller.warp.m /= 2;
    const bool warp_can_shrink = (o.warp.m > 16 || o.warp.n > 16) &&
                                 threads_per_block(smaller) <= arch_limits(o.arch).max_threads_per_block;
    throw UserError(fmt::format("def '{}': warp tile {} needs {} registers per thread by the register model ({}); {} "
                                "allows {} to each of the block's {} threads ({} over): {}",
                                program.name, to_string(o.warp), layout.register_model.total(),
                                layout.register_model.to_string(), to_string(o.arch), register_limit(o.arch, layout.threads),
                                layout.threads, over(layout),
                                warp_can_shrink ? "use a smaller `warp`"
                                                : fmt::format("a smaller warp tile would give block tile {} more than {} "
                                                              "threads; use a smaller `block`",
                                                              to_string(o.block), arch_limits(o.arch).max_threads_per_block)));
  }
  return layout;
}

}  // namespace polyfuse
