// The setmaxnreg hook (host_hooks.h; PTX ISA 9.7.17.1 "setmaxnreg") and the check of the
// block's final register counts (register_pool.h).
#include <string>

#include "hopper_checks.h"
#include "host_hooks.h"

namespace polyfuse::emu {
namespace {

std::string operation_text(unsigned count, bool increase) {
  return std::string("setmaxnreg.") + (increase ? "inc" : "dec") + " " + std::to_string(count);
}

std::string counts_text(const Launch& l) {
  std::string text;
  const unsigned groups = static_cast<unsigned>((l.threads.size() + 127) / 128);
  for (unsigned g = 0; g < groups; ++g) {
    auto& changes = const_cast<Launch&>(l).hopper.registers.changes(g);
    text += (g ? ", " : "") + std::string("warpgroup ") + std::to_string(g) + ": " +
            (changes.empty() ? std::to_string(l.hopper.registers.entry_count()) + " (entry)"
                             : std::to_string(changes.back().count));
  }
  return text;
}

}  // namespace

void check_final_register_counts(Launch& l) {
  RegisterPool& pool = l.hopper.registers;
  const unsigned n = static_cast<unsigned>(l.threads.size());
  for (unsigned t = 0; t < n; ++t) {
    const auto& changes = pool.changes(t / 128);
    if (pool.executed(t) == changes.size()) continue;
    const RegisterCountChange& c = changes[pool.executed(t)];
    throw EmulationError("polyfuse emu: warpgroup divergence at setmaxnreg in " + where(l, nullptr) + ": thread " +
                         thread_text(l, t) + " ended after " + std::to_string(pool.executed(t)) +
                         " setmaxnreg, but thread " + thread_text(l, c.thread) + " of its warpgroup " +
                         std::to_string(t / 128) + " executed " + operation_text(c.count, c.increase) +
                         l.sites.describe(c.site) + " (.sync.aligned: all 128 threads of a warpgroup execute the same setmaxnreg)");
  }
  for (unsigned rank = 0; rank < l.cluster_blocks; ++rank)
    if (const std::uint64_t total = pool.block_registers(pool.entry_count(), rank); total > pool.pool())
      throw EmulationError("polyfuse emu: setmaxnreg over the register file in " +
                           where(l, &l.threads[rank * l.block_threads]) + ": the final counts (" + counts_text(l) +
                           " registers per thread) need " + std::to_string(total) + " registers for " +
                           std::to_string(l.block_threads) + " threads, more than the block's pool of " +
                           std::to_string(pool.pool()) + " (" + std::to_string(pool.entry_count()) +
                           " per thread at launch; setmaxnreg.inc would wait forever)");
}

}  // namespace polyfuse::emu

// ---- host hook ------------------------------------------------------------------------------

namespace pf_host {
namespace emu = polyfuse::emu;
using polyfuse::emu::EmulationError;

void setmaxnreg(unsigned count, bool increase) {
  const emu::HookCall call = emu::enter_hook(__builtin_return_address(0));
  emu::Launch& l = call.l;
  emu::ThreadState* t = call.t;
  const std::string op = emu::operation_text(count, increase);
  if (count < 24 || count > 256 || count % 8 != 0)
    throw EmulationError("polyfuse emu: " + op + " in " + emu::here(l, t, call.site) +
                         ": the register count must be a multiple of 8 in 24 .. 256 (PTX ISA 9.7.17.1)");
  const unsigned g = t->warp / 4;
  if (4 * g + 4 > l.warps.size() || l.warps[4 * g + 3].size != 32)
    throw EmulationError("polyfuse emu: " + op + " by warp " + std::to_string(t->warp) + " in " + emu::here(l, t, call.site) +
                         ": its warpgroup " + std::to_string(g) + " is not 4 whole warps in a block of " +
                         std::to_string(l.block_threads) + " threads (setmaxnreg is executed by whole warpgroups)");
  emu::RegisterPool& pool = l.hopper.registers;
  auto& changes = pool.changes(g);
  const unsigned k = pool.executed(t->linear)++;
  if (k < changes.size()) {
    const emu::RegisterCountChange& first = changes[k];
    if (first.count != count || first.increase != increase)
      throw EmulationError("polyfuse emu: warpgroup divergence at setmaxnreg in " + emu::here(l, t, call.site) +
                           ": this thread executes " + op + " where thread " + emu::thread_text(l, first.thread) +
                           l.sites.describe(first.site) + " of the same warpgroup " + std::to_string(g) + " executed " +
                           emu::operation_text(first.count, first.increase) +
                           " (.sync.aligned: all 128 threads of a warpgroup execute the same setmaxnreg)");
    return;
  }
  changes.push_back(emu::RegisterCountChange{count, increase, t->linear, call.site});
  // The warpgroups without a setmaxnreg yet may still decrease to 24: over the pool even then is final.
  if (const std::uint64_t least = pool.block_registers(24, t->rank); least > pool.pool())
    throw EmulationError("polyfuse emu: " + op + " in " + emu::here(l, t, call.site) +
                         " asks for more registers than the block has: " + std::to_string(least) + " of the block's pool of " +
                         std::to_string(pool.pool()) + " (" + std::to_string(pool.entry_count()) + " per thread at launch)" +
                         " for the block's " + std::to_string(l.block_threads) +
                         " threads even if every other warpgroup decreased to 24 (" + emu::counts_text(l) + ")");
}

}  // namespace pf_host
