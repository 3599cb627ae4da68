#include "codegen/hopper_row_chain.h"

#include <fmt/format.h>

#include <algorithm>

#include "codegen/hopper_epilogue.h"
#include "frontend/diagnostics.h"

namespace polyfuse {

std::variant<HopperRowChain, std::string> hopper_row_chain(const Program& program, const KernelPlan& plan,
                                                           const FusedRowChain& fused) {
  if (plan.matmuls.size() != 1) return std::string("the kernel has several matmuls");
  const std::string& c = plan.matmuls[0].c;
  std::vector<std::string> ids;  // the head's statements after the matmul, then the chain's
  for (const std::string& id : fused.head)
    if (program.find_statement(id)->write.tensor != c) ids.push_back(id);
  ids.insert(ids.end(), fused.chain.begin(), fused.chain.end());
  std::variant<RowChain, std::string> found = row_chain_of(program, ids);
  if (const std::string* why = std::get_if<std::string>(&found)) return *why;
  RowChain& chain = std::get<RowChain>(found);
  if (chain.by_block) return std::string("a row of more than 1024 terms takes a block");
  for (const std::string& id : ids) {
    const Statement& s = *program.find_statement(id);
    if (s.write.tensor == c) return fmt::format("{} writes {} again", id, c);
    for (const Access& a : s.reads)
      if (a.tensor == c && !is_contiguous_row_access(program, chain, s, a))
        return fmt::format("{} reads {} elsewhere than at its element", id, c);
  }
  return HopperRowChain{std::move(chain), c, fused.row_length};
}

MainLoopChoice with_fused_row_chain(const Program& program, const KernelPlan& plan, const GpuOptions& options,
                                    MainLoopChoice choice) {
  const std::optional<FusedRowChain> fused = has_wgmma(options.arch) ? fused_row_chain(program) : std::nullopt;
  if (!fused || choice.loop != MainLoop::tma_wgmma) return choice;
  const std::variant<HopperRowChain, std::string> staged = hopper_row_chain(program, plan, *fused);
  if (const std::string* why = std::get_if<std::string>(&staged)) {
    MainLoopChoice fallback;
    fallback.fallback_reason = "the row chain in the epilogue runs on the mma.sync accumulator fragments: " + *why;
    return fallback;
  }
  return choice;
}

std::string describe_sm90a_epilogue(const Program& program, const KernelPlan& plan) {
  const std::optional<FusedRowChain> fused = fused_row_chain(program);
  if (!fused) return describe_hopper_epilogue(program, plan);
  const std::variant<HopperRowChain, std::string> staged = hopper_row_chain(program, plan, *fused);
  PF_INTERNAL_CHECK(std::holds_alternative<HopperRowChain>(staged), "a row chain the wgmma epilogue takes");
  const HopperRowChain& chain = std::get<HopperRowChain>(staged);
  return fmt::format("the row chain on each consumer's staged accumulators ({} read there), {}", chain.staged,
                     chain.chain.describe());
}

}  // namespace polyfuse
