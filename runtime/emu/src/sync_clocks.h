// Happens-before through mbarriers and asynchronous retirement, as vector clocks over the race
// detector's serials (race_detector.h). __syncthreads and warp collectives order accesses as
// before; these clocks add the edges of the Hopper operations (PTX ISA memory model, 8.x:
// mbarrier arrive = release, a completed try_wait = acquire):
//   * an arrive by thread t releases everything t has observed (its own accesses, what it
//     acquired, what a barrier or its warp's collectives ordered before it) into the barrier's
//     current phase; a TMA load chunk completing on the barrier releases its write likewise;
//   * a thread whose wait observes a completed phase acquires everything released into it and
//     into earlier phases;
//   * wgmma.wait_group retiring a warpgroup's operations is observed per warp (column
//     wgmma_retirement(w)): the PTX ISA promises the waiting thread its own operations complete,
//     not the other warps' shares of the warpgroup's wgmma, so the operand reads are ordered
//     before a thread only once it has observed the retirements of all four warps (its own
//     wait, plus the others' through an mbarrier or a __syncthreads); a TMA store's
//     wait_group.read orders its source reads before the waiting thread;
//   * __syncthreads: every thread acquires what any thread observed (merge()).
// Accesses of agents are ordered by nothing else: not by a __syncthreads alone (race_detector.h).
// clock[t][c] = s means: accesses of thread or agent c with serial < s are ordered before
// thread t's current point. Agents are the race detector's ids >= kAgentIdBase (agents.h).
#pragma once

#include <cstdint>
#include <vector>

#include "race_detector.h"

namespace polyfuse::emu {

class SyncClocks final : public ExtraOrder {
 public:
  // A launch with `threads` threads per block and `agents` agent ids (kAgentIdBase + 0 ..).
  void begin_launch(unsigned threads, unsigned agents);
  // A new block: no thread has acquired anything.
  void begin_block();
  bool ordered(std::uint32_t serial, unsigned id, unsigned thread) const override;

  // A release vector (one per mbarrier phase accumulator), all zero.
  std::vector<std::uint32_t> make_vector() const { return std::vector<std::uint32_t>(columns_, 0); }
  // Thread `t` releases into `into` at serial `r` (from SharedRaceDetector::sync_point()):
  // its accesses before r, its acquisitions, and the accesses the block's last barrier
  // (block_sync) and its warp's last collective (warp_sync) ordered before it.
  void release(unsigned t, std::uint32_t r, std::uint32_t block_sync, std::uint32_t warp_sync,
               std::vector<std::uint32_t>& into) const;
  // Agent `id`'s accesses before serial `r` are released into `into`.
  void release_agent(unsigned id, std::uint32_t r, std::vector<std::uint32_t>& into) const;
  // Thread `t` acquires `from`.
  void acquire(unsigned t, const std::vector<std::uint32_t>& from);
  // Thread `t` observes agent `id`'s accesses before serial `r` (a retirement).
  void observe(unsigned t, unsigned id, std::uint32_t r);
  // A __syncthreads completed: every thread acquires every thread's observations.
  void merge();

 private:
  unsigned column(unsigned id) const { return id < kAgentIdBase ? id : threads_ + (id - kAgentIdBase); }
  unsigned threads_ = 0, columns_ = 0;
  std::uint32_t at(unsigned t, unsigned c) const { return clock_[static_cast<std::size_t>(t) * columns_ + c]; }
  std::vector<std::uint32_t> clock_;  // threads_ x columns_
  bool any_ = false;                  // some entry is non-zero (kernels without Hopper operations skip merge())
};

}  // namespace polyfuse::emu
