#include "codegen/hopper_cluster_check.h"

#include <fmt/format.h>

#include "frontend/diagnostics.h"

namespace polyfuse {

void check_hopper_cluster(const Program& program, const KernelPlan& plan, const GpuOptions& options,
                          const MainLoopChoice& choice) {
  const std::string what = fmt::format("`cluster` {}: def '{}' on {}", to_string(options.cluster), program.name,
                                       to_string(options.arch));
  if (choice.loop != MainLoop::tma_wgmma)
    throw UserError(fmt::format("{} runs the {} main loop{}; only the sm_90a warp-specialised TMA + wgmma kernel has "
                                "thread-block clusters",
                                what, to_string(choice.loop),
                                choice.fallback_reason.empty() ? "" : " (" + choice.fallback_reason + ")"));
  if (choice.any_thread_copy())
    throw UserError(fmt::format("{}: an operand of its matmul is copied by the producer's threads, not loaded by TMA, "
                                "and a cluster shares its tiles by TMA multicast",
                                what));
  if (choice.any_prologue_in_place())
    throw UserError(fmt::format("{}: the producer's threads apply an operand's prologue in the block's shared memory, "
                                "and a cluster's TMA multicast is not done for such tiles yet",
                                what));
  if (plan.matmuls.size() != 1 || !plan.matmuls[0].dims.batch.empty())
    throw UserError(fmt::format("{}: clusters are done for one unbatched matmul per kernel (not yet for {})", what,
                                plan.matmuls.size() != 1 ? "two matmuls in one k-loop" : "a batched matmul"));
}

}  // namespace polyfuse
