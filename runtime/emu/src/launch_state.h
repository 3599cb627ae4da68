// The state of one emulated launch, shared by the scheduler (launch.cc) and the host hooks
// (host_hooks.cc): the block's threads (fibers) and warps, its shared memory, and the
// checkers that watch it (race detectors, pending asynchronous copies, access sites, the Hopper
// state: mbarriers, wgmma in flight, proxies).
#pragma once

#include <ucontext.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "access_sites.h"
#include "access_tracker.h"
#include "async_copies.h"
#include "fiber.h"
#include "global_race_detector.h"
#include "hopper_state.h"
#include "polyfuse_emu/cuda_emulation.h"
#include "polyfuse_emu/emulator.h"
#include "race_detector.h"
#include "schedule_policy.h"

namespace polyfuse::emu {

// What a suspended thread waits for: a warp collective, __syncthreads, the other warps of its
// warpgroup at a wgmma.mma_async, an mbarrier phase (HopperState::waits), or nothing (exited).
enum class Wait { none, warp, barrier, exited, warpgroup, mbarrier };

struct ThreadState {
  detail::ThreadCoords coords{};
  unsigned linear = 0, warp = 0, lane = 0;
  Wait wait = Wait::none;
  unsigned sequence[2] = {0, 0};  // global / shared accesses since the warp's last sync point
  Fiber fiber;
};

struct WarpState {
  unsigned first = 0, size = 0, arrived = 0, generation = 0, exited = 0;
  const char* what = nullptr;
  unsigned bytes = 0;
  std::vector<unsigned char> deposits[2];
  WarpAccessLog log[2];  // global, shared
};

struct Launch {
  std::string kernel;
  dim3 grid, block;
  std::size_t shared_bytes = 0;
  const std::function<void()>* body = nullptr;
  std::vector<ThreadState> threads;
  std::vector<WarpState> warps;
  std::vector<unsigned char> shared_storage;
  unsigned char* shared = nullptr;
  unsigned barrier_arrived = 0;
  const char* barrier_file = nullptr;
  unsigned barrier_line = 0;
  unsigned barrier_first = 0;
  uint3 block_idx{};
  unsigned block_linear = 0;
  ThreadState* current = nullptr;
  ucontext_t scheduler{};
  std::exception_ptr error;
  Stats stats;

  Scheduler schedule;
  bool race_check = true;
  SharedRaceDetector shared_races;
  GlobalRaceDetector global_races;
  AsyncCopies async_copies;
  AccessSites sites;
  HopperState hopper;
};

// The launch running on this host thread, with a current CUDA thread; throws otherwise.
Launch& current_launch();

// "(x,y,z)".
std::string coord_text(uint3 v);
// "kernel 'K', block (x,y,z)" and, with `t`, ", thread (x,y,z)".
std::string where(const Launch& l, const ThreadState* t);
// "(x,y,z)" of the thread with linear index `linear` in the block.
std::string thread_text(const Launch& l, unsigned linear);
// "shared offset N (0x...)".
std::string shared_address_text(const Launch& l, std::uintptr_t address);

// Completes the warp's pending access requests into the counters (a warp sync point).
void flush_warp(Launch& l, WarpState& w);

}  // namespace polyfuse::emu
