// The emulator's thread schedule (Options::schedule, emulator.h): which runnable CUDA thread
// of the block runs next, and (random policy) whether a thread is preempted at a memory
// access or a pending cp.async lands early. Every choice comes from a generator seeded by
// the schedule's seed and the block index, so a run repeats exactly.
#pragma once

#include <cstdint>

#include "polyfuse_emu/emulator.h"

namespace polyfuse::emu {

class Scheduler {
 public:
  // Starts the block with linear index `block_linear` of `threads` threads.
  void begin_block(const Schedule& schedule, unsigned block_linear, unsigned threads);
  // A __syncthreads completed (warp_ahead draws the next warp to run ahead).
  void barrier_completed();
  // The next thread to resume: runnable(i) says whether thread i can run; -1 when none can.
  template <class Runnable> int next(Runnable runnable);
  // random: should the running thread yield at this memory access? (about 1 in 8)
  bool preempt() { return schedule_.kind == ScheduleKind::random && (draw() & 7) == 0; }
  // random: should a pending cp.async land now, before its wait? (about 1 in 8)
  bool land_early() { return schedule_.kind == ScheduleKind::random && (draw() & 7) == 1; }
  // Uniform in [0, bound), bound > 0.
  std::uint64_t uniform(std::uint64_t bound) { return draw() % bound; }
  const Schedule& schedule() const { return schedule_; }

 private:
  std::uint64_t draw();  // splitmix64
  Schedule schedule_;
  unsigned threads_ = 0, cursor_ = 0, leader_ = 0;
  std::uint64_t state_ = 0;
};

template <class Runnable> int Scheduler::next(Runnable runnable) {
  if (schedule_.kind == ScheduleKind::random) {
    unsigned count = 0;
    for (unsigned i = 0; i < threads_; ++i) count += runnable(i) ? 1 : 0;
    if (count == 0) return -1;
    unsigned k = static_cast<unsigned>(uniform(count));
    for (unsigned i = 0; i < threads_; ++i)
      if (runnable(i) && k-- == 0) return static_cast<int>(i);
    return -1;
  }
  if (schedule_.kind == ScheduleKind::warp_ahead) {
    const unsigned first = 32 * leader_, last = first + 32 < threads_ ? first + 32 : threads_;
    for (unsigned i = first; i < last; ++i)
      if (runnable(i)) return static_cast<int>(i);
  }
  for (unsigned step = 0; step < threads_; ++step) {
    const unsigned i = (cursor_ + step) % threads_;
    if (runnable(i)) {
      cursor_ = i + 1;
      return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace polyfuse::emu
