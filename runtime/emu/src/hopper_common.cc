// The Hopper part of the launch (hopper.h) and the checks the Hopper hooks share
// (hopper_checks.h).
#include <cstdio>

#include "agents.h"
#include "hopper.h"
#include "hopper_checks.h"

namespace polyfuse::emu {

HookCall enter_hook(const void* pc) {
  Launch& l = current_launch();
  ThreadState* t = l.current;
  hopper_schedule_point(l);
  if (l.schedule.preempt()) t->fiber.yield();
  return HookCall{l, t, l.sites.intern(pc)};
}

std::string here(const Launch& l, const ThreadState* t, std::uint16_t site) { return where(l, t) + l.sites.describe(site); }

std::size_t checked_shared_offset(const Launch& l, const ThreadState* t, const void* p, std::uint64_t bytes,
                                  const std::string& what, std::uint16_t site) {
  const auto a = reinterpret_cast<std::uintptr_t>(p), base = reinterpret_cast<std::uintptr_t>(l.shared) + block_base(l, t);
  if (a < base || a + bytes > base + l.block_shared_bytes) {
    char text[64];
    std::snprintf(text, sizeof text, "%lld", static_cast<long long>(a - base));
    throw EmulationError("polyfuse emu: " + what + " (" + std::to_string(bytes) + " bytes at shared offset " + text +
                         ") lies outside the block's " + std::to_string(l.block_shared_bytes) +
                         " bytes of dynamic shared memory in " + here(l, t, site));
  }
  return a - reinterpret_cast<std::uintptr_t>(l.shared);
}

std::string mbarrier_text(const Mbarrier& b) {
  return "the mbarrier at shared offset " + std::to_string(b.offset) + " (phase " + std::to_string(b.phase) +
         ", parity " + std::to_string(b.phase & 1) + "; " + std::to_string(b.pending) + " of " +
         std::to_string(b.expected) + " arrivals pending, " + std::to_string(b.tx) + " transaction bytes pending)";
}

Mbarrier& checked_mbarrier(Launch& l, const ThreadState* t, const void* bar, const char* op, std::uint16_t site) {
  return checked_mbarrier_at(l, t, checked_shared_offset(l, t, bar, 8, std::string(op) + " on an mbarrier", site), op, site);
}

Mbarrier& checked_mbarrier_at(Launch& l, const ThreadState* t, std::size_t offset, const char* op, std::uint16_t site) {
  if (offset % 8 != 0)
    throw EmulationError("polyfuse emu: " + std::string(op) + " on a misaligned mbarrier at shared offset " +
                         std::to_string(offset) + " (mbarrier objects are 8-byte aligned) in " + here(l, t, site));
  Mbarrier* b = l.hopper.barriers.find(offset);
  const bool peer = t && l.cluster_blocks > 1 && offset / l.block_stride != t->rank;
  const char* cluster_rule = "a peer's mbarrier is used only once its init is ordered before the use: fence.mbarrier_init, "
                             "then barrier.cluster arrive/wait in both blocks, after the init";
  if (!b)
    throw EmulationError("polyfuse emu: " + std::string(op) + " on shared offset " + std::to_string(offset) +
                         ", which holds no initialised mbarrier (mbarrier.init first) in " + here(l, t, site) +
                         (peer ? std::string(" (block rank ") + std::to_string(offset / l.block_stride) + ": " + cluster_rule + ")"
                               : std::string()));
  if (l.race_check && t)
    if (const auto race = l.shared_races.check_read(offset, 8, t->linear))
      throw EmulationError("polyfuse emu: " + std::string(op) + " in " + here(l, t, site) + " uses the mbarrier at shared offset " +
                           std::to_string(offset) + " before its mbarrier.init by thread " +
                           thread_text(l, b->init_thread) + l.sites.describe(b->init_site) + " is ordered before it (" +
                           (peer ? cluster_rule : "fence.mbarrier_init and __syncthreads after the init") + ")");
  return *b;
}

void complete_phase_if_done(Launch& l, Mbarrier& b) {
  if (!MbarrierTable::complete_if_done(b)) return;
  for (ThreadState& other : l.threads)
    if (other.wait == Wait::mbarrier && l.hopper.waits[other.linear].barrier == b.offset) other.wait = Wait::none;
}

std::size_t finish_tma_chunk(Launch& l, const AsyncCopy& c) {
  Mbarrier* b = l.hopper.barriers.find(c.barrier);
  l.hopper.proxy.async_write(c.offset, c.bytes);
  if (!b) return 1;  // the barrier was re-initialised: the chunk lands, completing nothing
  if (l.race_check) {
    l.shared_races.record_write(c.offset, c.bytes, tma_agent(b->slot), c.site);
    l.hopper.clocks.release_agent(tma_agent(b->slot), l.shared_races.sync_point(), b->released);
  }
  b->tx -= c.bytes;
  complete_phase_if_done(l, *b);
  return 1;
}

void throw_pending_read(const Launch& l, const ThreadState* t, const std::string& what, std::size_t offset,
                        const AsyncCopy& c, std::uint16_t site) {
  std::string pending;
  if (c.trigger == Trigger::mbarrier_tx) {
    pending = pending_tma_text(l, c);
  } else {
    pending = "a pending cp.async of thread " + thread_text(l, c.thread) + l.sites.describe(c.site) +
              " (no cp.async.wait_group of that thread has completed it yet)";
  }
  throw EmulationError("polyfuse emu: " + what + " in " + here(l, t, site) + " reads shared offset " +
                       std::to_string(offset) + ", the destination of " + pending);
}

void throw_unfenced_read(const Launch& l, const std::string& what, std::size_t offset, unsigned first,
                         const AsyncProxy::Unfenced& u, std::uint16_t site) {
  throw EmulationError("polyfuse emu: missing fence.proxy.async: " + what + " in " + where(l, nullptr) +
                       l.sites.describe(site) + " (async proxy, issued by thread " + thread_text(l, first) +
                       ") reads shared offset " + std::to_string(u.offset) + ", which thread " +
                       thread_text(l, u.thread) + " wrote with an ordinary store" + l.sites.describe(u.site) +
                       " and has not fenced since: the writing thread must execute fence.proxy.async.shared::cta "
                       "between its stores and the barrier before the async proxy reads them");
}

void throw_async_read_race(const Launch& l, const std::string& what, std::size_t offset, unsigned first,
                           unsigned threads, const SharedRace& race, std::uint16_t site) {
  throw EmulationError("polyfuse emu: shared-memory race (read-after-write) in " + where(l, nullptr) + ": " + what +
                       l.sites.describe(site) + " issued by threads " + thread_text(l, first) + " .. " +
                       thread_text(l, first + threads - 1) + " reads shared offset " + std::to_string(race.offset) +
                       ", but " + agent_text(l, race.earlier.thread) + " wrote it" + l.sites.describe(race.earlier.site) +
                       " and nothing orders that write before the read (no __syncthreads, mbarrier wait or "
                       "wait_group between them)");
}

std::string agent_text(const Launch& l, unsigned id) {
  switch (agent_kind(id)) {
    case AgentKind::thread: return "thread " + thread_text(l, id);
    case AgentKind::tma_load: {
      const unsigned slot = agent_index(id);
      std::string barrier = "mbarrier slot " + std::to_string(slot);
      for (const Mbarrier& b : const_cast<Launch&>(l).hopper.barriers.all())
        if (b.slot == slot) barrier = "the mbarrier at shared offset " + std::to_string(b.offset);
      return "a TMA load completing on " + barrier;
    }
    case AgentKind::wgmma:
      return "the wgmma.mma_async of warpgroup " + std::to_string(agent_index(id)) +
             " (operand reads, ordered only after the wgmma.wait_group of each of its four warps)";
    case AgentKind::wgmma_retirement:
      return "the wgmma retirements of warp " + std::to_string(agent_index(id));
    case AgentKind::tma_store:
      return "a TMA store issued by warp " + std::to_string(agent_index(id)) + " (source reads)";
  }
  return "?";
}

std::string pending_tma_text(const Launch& l, const AsyncCopy& c) {
  std::string barrier = "an mbarrier at shared offset " + std::to_string(c.barrier);
  if (const Mbarrier* b = const_cast<Launch&>(l).hopper.barriers.find(c.barrier)) barrier = mbarrier_text(*b);
  return "TMA load #" + std::to_string(c.operation) + " (cp.async.bulk.tensor) issued by thread " +
         thread_text(l, c.thread) + l.sites.describe(c.site) + ", still in flight: it completes on " + barrier +
         ", and no thread has observed that phase complete yet (mbarrier.try_wait.parity)";
}

void hopper_begin_launch(Launch& l) {
  const unsigned n = static_cast<unsigned>(l.threads.size());
  l.hopper.proxy.begin_launch(l.shared_bytes, n);
  l.hopper.clocks.begin_launch(n, kAgents);
  l.hopper.wgmma.begin_launch(n);
  l.hopper.registers.begin_launch(n, l.block_threads);
  l.hopper.waits.assign(n, MbarrierWait{});
  l.hopper.bulk_committed.assign(n, 0);
  l.hopper.tma_operations = 0;
  if (l.race_check) l.shared_races.set_extra_order(&l.hopper.clocks);
}

void hopper_begin_block(Launch& l) {
  l.hopper.barriers.begin_block();
  l.hopper.proxy.begin_block();
  l.hopper.clocks.begin_block();
  l.hopper.wgmma.begin_block();
  l.hopper.registers.begin_block();
  l.hopper.stores.clear();
  for (std::uint64_t& c : l.hopper.bulk_committed) c = 0;
}

void hopper_end_block(Launch& l) { check_final_register_counts(l); }

bool hopper_unstick(Launch& l) {
  if (l.async_copies.pending_tx() == 0) return false;
  finish_tma_chunks(l, [](const AsyncCopy&) { return true; });
  for (const ThreadState& t : l.threads)
    if (t.wait == Wait::none) return true;
  return false;
}

void hopper_schedule_point(Launch& l) {
  if (l.async_copies.pending_tx() && l.schedule.land_early())
    if (const AsyncCopy* c = l.async_copies.pending_tx_at(l.schedule.uniform(1u << 30))) {
      const AsyncCopy* chosen = c;
      finish_tma_chunks(l, [chosen](const AsyncCopy& x) { return &x == chosen; });
    }
}

void hopper_shared_access(Launch& l, const ThreadState* t, std::size_t offset, unsigned bytes, bool store,
                          std::uint16_t site) {
  if (const Mbarrier* b = l.hopper.barriers.overlapping(offset, bytes))
    throw EmulationError("polyfuse emu: ordinary " + std::string(store ? "store to" : "load from") + " shared offset " +
                         std::to_string(offset) + " in " + here(l, t, site) + " touches " + mbarrier_text(*b) +
                         ": an mbarrier object is accessed only by mbarrier instructions");
  if (!store) return;
  for (const PendingStore& s : l.hopper.stores)
    if (offset < s.offset + s.bytes && s.offset < offset + bytes)
      throw EmulationError("polyfuse emu: store to shared offset " + std::to_string(offset) + " in " + here(l, t, site) +
                           " overwrites the source of a TMA store issued by thread " + thread_text(l, s.thread) +
                           l.sites.describe(s.site) +
                           " that may still be reading it (cp.async.bulk.wait_group.read of that thread first)");
  l.hopper.proxy.generic_write(offset, bytes, t->linear, site);
}

}  // namespace polyfuse::emu
