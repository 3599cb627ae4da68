// Checks shared by the Hopper hooks (mbarrier_hooks.cc, wgmma_hooks.cc, tma_hooks.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "launch_state.h"

namespace polyfuse::emu {

// A Hopper hook entered by the current thread from code address `pc` (its caller): the
// random schedule's chances (a TMA chunk finishing early, a preemption) and the call site.
struct HookCall {
  Launch& l;
  ThreadState* t;
  std::uint16_t site;
};
HookCall enter_hook(const void* pc);

// The shared offset of `p`, refusing a range [p, p + bytes) outside the block's dynamic shared
// memory: "polyfuse emu: <what> at ... lies outside the block's N bytes of dynamic shared memory".
std::size_t checked_shared_offset(const Launch& l, const ThreadState* t, const void* p, std::uint64_t bytes,
                                  const std::string& what, std::uint16_t site);

// The shared bytes [offset, offset + bytes) read by the async proxy on behalf of `threads`
// threads from `first` (a warpgroup's wgmma, a TMA store's issuing thread): refuses bytes a
// pending cp.async or TMA load will still write, bytes written by an ordinary store whose thread
// has not executed fence.proxy.async since, and bytes whose last write is ordered before none of
// the threads (a race); then records the read under agent `agent`. `what()` names the operand.
template <class What>
void check_async_read(Launch& l, unsigned first, unsigned threads, std::size_t offset, unsigned bytes, What what,
                      std::uint16_t site, unsigned agent);

// The initialised mbarrier at `bar`, or an error naming `op` ("mbarrier.arrive", ...): outside
// shared memory, misaligned, never initialised, or used before its init is ordered before the
// calling thread.
Mbarrier& checked_mbarrier(Launch& l, const ThreadState* t, const void* bar, const char* op, std::uint16_t site);
// The same for the mbarrier at offset `offset` of the cluster's shared-memory window.
Mbarrier& checked_mbarrier_at(Launch& l, const ThreadState* t, std::size_t offset, const char* op, std::uint16_t site);

// "the mbarrier at shared offset 64 (phase 3, 1 of 2 arrivals pending, 0 transaction bytes)".
std::string mbarrier_text(const Mbarrier& b);

// Completes a phase of `b` if nothing is pending: wakes the threads waiting on it.
void complete_phase_if_done(Launch& l, Mbarrier& b);

// The copy engine finishes the TMA load chunks picked by `pick` (AsyncCopy -> bool): lands them,
// lowers their mbarriers' transaction counts (completing phases), records their writes.
template <class Pick> std::size_t finish_tma_chunks(Launch& l, Pick pick);
std::size_t finish_tma_chunk(Launch& l, const AsyncCopy& c);  // the bookkeeping of one

// At the end of a block: every thread of a warpgroup executed the same setmaxnreg operations and
// the final counts fit the block's 64K registers (setmaxnreg_hooks.cc).
void check_final_register_counts(Launch& l);

// "[schedule ...]"-free description of the current thread's place: "kernel 'k', block (..), thread (..)".
std::string here(const Launch& l, const ThreadState* t, std::uint16_t site);

// ---- templates ---------------------------------------------------------------------------

void throw_pending_read(const Launch& l, const ThreadState* t, const std::string& what, std::size_t offset,
                        const AsyncCopy& c, std::uint16_t site);
void throw_unfenced_read(const Launch& l, const std::string& what, std::size_t offset, unsigned first,
                         const AsyncProxy::Unfenced& u, std::uint16_t site);
void throw_async_read_race(const Launch& l, const std::string& what, std::size_t offset, unsigned first,
                           unsigned threads, const SharedRace& race, std::uint16_t site);

template <class What>
void check_async_read(Launch& l, unsigned first, unsigned threads, std::size_t offset, unsigned bytes, What what,
                      std::uint16_t site, unsigned agent) {
  const ThreadState* t = l.current;
  if (const AsyncCopy* c = l.async_copies.pending_at(offset, bytes)) throw_pending_read(l, t, what(), offset, *c, site);
  if (const auto u = l.hopper.proxy.unfenced(offset, bytes)) throw_unfenced_read(l, what(), offset, first, *u, site);
  if (!l.race_check) return;
  std::optional<SharedRace> race = l.shared_races.check_read(offset, bytes, t->linear);
  for (unsigned i = 0; race && i < threads; ++i)
    if (!l.shared_races.check_read(offset, bytes, first + i)) race.reset();
  if (race) throw_async_read_race(l, what(), offset, first, threads, *race, site);
  l.shared_races.record_agent_read(offset, bytes, agent, site);
}

template <class Pick> std::size_t finish_tma_chunks(Launch& l, Pick pick) {
  std::size_t n = 0;
  l.async_copies.complete_tx_if(pick, [&](const AsyncCopy& c) { n += finish_tma_chunk(l, c); });
  return n;
}

}  // namespace polyfuse::emu
