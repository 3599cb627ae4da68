// The mbarrier and proxy-fence hooks (host_hooks.h; PTX ISA 9.7.13.15 "mbarrier", 9.7.13.4
// "fence.proxy"), and the deadlock report of threads that wait on mbarriers or at a
// warpgroup's wgmma forever.
#include <set>

#include "agents.h"
#include "cluster.h"
#include "hopper.h"
#include "hopper_checks.h"
#include "host_hooks.h"

namespace polyfuse::emu {
namespace {

void hopper_preempt(Launch& l, ThreadState* t) {
  hopper_schedule_point(l);
  if (l.schedule.preempt()) t->fiber.yield();
}

// What a thread that is not at the wgmma does.
std::string activity(const Launch& l, const ThreadState& t) {
  switch (t.wait) {
    case Wait::barrier: return "waits at __syncthreads";
    case Wait::exited: return "has exited";
    case Wait::warp: return std::string("waits at warp collective '") + (l.warps[t.warp].what ? l.warps[t.warp].what : "?") + "'";
    case Wait::mbarrier: return "waits on the mbarrier at shared offset " + std::to_string(l.hopper.waits[t.linear].barrier);
    case Wait::warpgroup: return "waits at a wgmma.mma_async";
    case Wait::cluster: return "waits at barrier.cluster.wait";
    case Wait::none: return "runs";
  }
  return "?";
}

std::string warpgroup_deadlock(const Launch& l) {
  for (const ThreadState& t : l.threads) {
    if (t.wait != Wait::warpgroup) continue;
    const unsigned g = t.warp / 4, first_warp = 4 * g;
    std::string arrived, missing;
    for (unsigned w = first_warp; w < first_warp + 4 && w < l.warps.size(); ++w) {
      const ThreadState& lead = l.threads[l.warps[w].first];
      if (lead.wait == Wait::warpgroup) {
        arrived += (arrived.empty() ? "" : ", ") + std::to_string(w);
      } else {
        missing += (missing.empty() ? "" : "; ") + std::string("warp ") + std::to_string(w) + " " + activity(l, lead);
      }
    }
    const WarpgroupArrival& a = const_cast<Launch&>(l).hopper.wgmma.arrival(g);
    return "polyfuse emu: deadlock at wgmma.mma_async in " + where(l, nullptr) + ": warp(s) " + arrived +
           " of warpgroup " + std::to_string(g) + " (warps " + std::to_string(first_warp) + ".." +
           std::to_string(first_warp + 3) + ") wait at wgmma.mma_async" + l.sites.describe(a.site) +
           ", but the rest never arrive (" + missing +
           "): a warpgroup is 4 consecutive warps starting at a warp index divisible by 4, and all 128 of its "
           "threads issue every wgmma together (misaligned warpgroup?)";
  }
  return {};
}

}  // namespace

std::string hopper_deadlock(const Launch& l) {
  if (std::string text = warpgroup_deadlock(l); !text.empty()) return text;
  std::string text;
  std::set<std::size_t> described;
  unsigned waiting = 0;
  for (const ThreadState& t : l.threads) {
    if (t.wait != Wait::mbarrier) continue;
    ++waiting;
    const MbarrierWait& w = l.hopper.waits[t.linear];
    if (!described.insert(w.barrier).second) continue;
    const Mbarrier* b = const_cast<Launch&>(l).hopper.barriers.find(w.barrier);
    text += " thread " + coord_text(t.coords.thread_idx) + " waits for the phase of parity " + std::to_string(w.parity) +
            l.sites.describe(w.site) + " on ";
    if (!b) {
      text += "shared offset " + std::to_string(w.barrier) + ", no longer an mbarrier;";
      continue;
    }
    text += mbarrier_text(*b) + ", which can never complete it:";
    if (b->pending) text += " " + std::to_string(b->pending) + " arrival(s) will never come;";
    if (b->tx > 0) text += " its transaction count waits for " + std::to_string(b->tx) + " bytes that no TMA load in flight will deliver;";
    if (b->tx < 0) text += " TMA loads delivered " + std::to_string(-b->tx) + " bytes more than expect_tx announced;";
    if (MbarrierTable::parity_completed(*b, w.parity)) text += " (the phase is complete now);";
  }
  if (waiting == 0) return {};
  std::string others;
  unsigned at_barrier = 0, exited = 0, at_cluster = 0;
  for (const ThreadState& t : l.threads) {
    at_barrier += t.wait == Wait::barrier;
    exited += t.wait == Wait::exited;
    at_cluster += t.wait == Wait::cluster;
  }
  if (at_barrier) others += " " + std::to_string(at_barrier) + " thread(s) wait at __syncthreads;";
  if (at_cluster) others += " " + std::to_string(at_cluster) + " thread(s) wait at barrier.cluster.wait;";
  if (exited) others += " " + std::to_string(exited) + " thread(s) have exited;";
  text += others;
  text.pop_back();
  return "polyfuse emu: deadlock on an mbarrier in " + where(l, nullptr) + ": " + std::to_string(waiting) +
         " thread(s) wait on mbarriers whose phase can never complete:" + text;
}

}  // namespace polyfuse::emu

// ---- host hooks ----------------------------------------------------------------------------

namespace pf_host {
namespace emu = polyfuse::emu;
using polyfuse::emu::EmulationError;

void mbarrier_init(void* bar, unsigned count) {
  const emu::HookCall call = emu::enter_hook(__builtin_return_address(0));
  emu::Launch& l = call.l;
  emu::ThreadState* t = call.t;
  const std::uint16_t site = call.site;
  const std::size_t offset = emu::checked_shared_offset(l, t, bar, 8, "mbarrier.init", site);
  if (offset % 8 != 0)
    throw EmulationError("polyfuse emu: mbarrier.init of a misaligned mbarrier at shared offset " + std::to_string(offset) +
                         " (8-byte aligned) in " + emu::here(l, t, site));
  if (count == 0 || count > emu::kMbarrierMaxCount)
    throw EmulationError("polyfuse emu: mbarrier.init with count " + std::to_string(count) + " in " + emu::here(l, t, site) +
                         " (the expected arrival count is 1 .. 2^20 - 1)");
  if (const emu::AsyncCopy* c = l.async_copies.pending_at(offset, 8))
    throw EmulationError("polyfuse emu: mbarrier.init at shared offset " + std::to_string(offset) + " in " +
                         emu::here(l, t, site) + " overwrites the destination of " +
                         (c->trigger == emu::Trigger::mbarrier_tx ? emu::pending_tma_text(l, *c) : std::string("a pending cp.async")));
  for (const emu::ThreadState& other : l.threads)
    if (other.wait == emu::Wait::mbarrier && l.hopper.waits[other.linear].barrier == offset)
      throw EmulationError("polyfuse emu: mbarrier.init in " + emu::here(l, t, site) + " re-initialises the mbarrier at shared offset " +
                           std::to_string(offset) + " while thread " + emu::coord_text(other.coords.thread_idx) + " waits on it");
  if (l.race_check)
    if (const auto race = l.shared_races.write(offset, 8, t->linear, site))
      throw EmulationError("polyfuse emu: mbarrier.init in " + emu::here(l, t, site) + " of the mbarrier at shared offset " +
                           std::to_string(offset) + " races with " + emu::agent_text(l, race->earlier.thread) +
                           l.sites.describe(race->earlier.site) + " (no __syncthreads between them)");
  if (!l.hopper.barriers.init(offset, count, t->linear, site, l.hopper.clocks.make_vector()))
    throw EmulationError("polyfuse emu: mbarrier.init in " + emu::here(l, t, site) + ": more than " +
                         std::to_string(emu::kMaxMbarriers) + " mbarriers in one block are not modelled");
}

namespace {
emu::Mbarrier& arrive_on(emu::Launch& l, emu::ThreadState* t, emu::Mbarrier& b, unsigned count, std::uint16_t site,
                         const char* op) {
  if (b.pending < count)
    throw EmulationError("polyfuse emu: " + std::string(op) + " in " + emu::here(l, t, site) + " arrives on " +
                         emu::mbarrier_text(b) + " more often than its expected " + std::to_string(b.expected) +
                         " arrivals per phase (undefined in the PTX ISA)");
  if (l.race_check)
    l.hopper.clocks.release(t->linear, l.shared_races.sync_point(), l.shared_races.block_sync(),
                            l.shared_races.warp_sync_serial(t->warp), b.released);
  b.pending -= count;
  emu::complete_phase_if_done(l, b);
  return b;
}

void expect_tx_on(emu::Launch& l, emu::ThreadState* t, emu::Mbarrier& b, unsigned tx_bytes, std::uint16_t site) {
  b.tx += tx_bytes;
  if (b.tx > emu::kMbarrierMaxTx)
    throw EmulationError("polyfuse emu: mbarrier expect_tx of " + std::to_string(tx_bytes) + " bytes in " +
                         emu::here(l, t, site) + " takes the transaction count of " + emu::mbarrier_text(b) +
                         " past 2^20 - 1");
}
}  // namespace

unsigned long long mbarrier_arrive(void* bar, unsigned count) {
  const emu::HookCall call = emu::enter_hook(__builtin_return_address(0));
  emu::Launch& l = call.l;
  emu::ThreadState* t = call.t;
  const std::uint16_t site = call.site;
  emu::Mbarrier& b = emu::checked_mbarrier(l, t, bar, "mbarrier.arrive", site);
  const std::uint64_t phase = b.phase;
  arrive_on(l, t, b, count, site, "mbarrier.arrive");
  return phase;
}

unsigned long long mbarrier_arrive_expect_tx(void* bar, unsigned tx_bytes) {
  const emu::HookCall call = emu::enter_hook(__builtin_return_address(0));
  emu::Launch& l = call.l;
  emu::ThreadState* t = call.t;
  const std::uint16_t site = call.site;
  emu::Mbarrier& b = emu::checked_mbarrier(l, t, bar, "mbarrier.arrive.expect_tx", site);
  const std::uint64_t phase = b.phase;
  expect_tx_on(l, t, b, tx_bytes, site);
  arrive_on(l, t, b, 1, site, "mbarrier.arrive.expect_tx");
  return phase;
}

void mbarrier_expect_tx(void* bar, unsigned tx_bytes) {
  const emu::HookCall call = emu::enter_hook(__builtin_return_address(0));
  emu::Launch& l = call.l;
  emu::ThreadState* t = call.t;
  const std::uint16_t site = call.site;
  emu::Mbarrier& b = emu::checked_mbarrier(l, t, bar, "mbarrier.expect_tx", site);
  expect_tx_on(l, t, b, tx_bytes, site);
}

bool mbarrier_wait_parity(void* bar, unsigned parity, bool blocking) {
  const emu::HookCall call = emu::enter_hook(__builtin_return_address(0));
  emu::Launch& l = call.l;
  emu::ThreadState* t = call.t;
  const std::uint16_t site = call.site;
  const char* op = blocking ? "mbarrier.try_wait.parity" : "mbarrier.test_wait.parity";
  const std::size_t offset = emu::checked_mbarrier(l, t, bar, op, site).offset;
  for (;;) {
    emu::Mbarrier* b = l.hopper.barriers.find(offset);
    if (!b) throw EmulationError("polyfuse emu: " + std::string(op) + " in " + emu::here(l, t, site) + ": the mbarrier at shared offset " +
                                 std::to_string(offset) + " was invalidated while the thread waited");
    if (emu::MbarrierTable::parity_completed(*b, parity)) {
      if (l.race_check) l.hopper.clocks.acquire(t->linear, b->completed);
      return true;
    }
    if (!blocking) return false;
    // The copy engine finishes this barrier's loads while the thread waits.
    if (emu::finish_tma_chunks(l, [offset](const emu::AsyncCopy& c) { return c.barrier == offset; })) continue;
    l.hopper.waits[t->linear] = emu::MbarrierWait{offset, parity, site};
    t->wait = emu::Wait::mbarrier;
    t->fiber.yield();  // until a phase of the barrier completes (or a deadlock is reported)
  }
}

void mbarrier_arrive_cluster(unsigned address) {
  const emu::HookCall call = emu::enter_hook(__builtin_return_address(0));
  const char* op = "mbarrier.arrive.shared::cluster";
  const std::size_t offset = emu::cluster_window_offset(call.l, call.t, address, 8, op, call.site);
  arrive_on(call.l, call.t, emu::checked_mbarrier_at(call.l, call.t, offset, op, call.site), 1, call.site, op);
}

void fence_proxy_async() {
  emu::Launch& l = emu::current_launch();
  emu::ThreadState* t = l.current;
  emu::hopper_preempt(l, t);
  l.hopper.proxy.fence(t->linear);
  for (emu::Mbarrier& b : l.hopper.barriers.all())
    if (b.init_thread == t->linear) b.async_visible = true;
}

void fence_mbarrier_init() {
  emu::Launch& l = emu::current_launch();
  emu::ThreadState* t = l.current;
  emu::hopper_preempt(l, t);
  for (emu::Mbarrier& b : l.hopper.barriers.all())
    if (b.init_thread == t->linear) b.async_visible = true;
}

}  // namespace pf_host
