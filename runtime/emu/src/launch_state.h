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
// In a cluster launch, also the cluster barrier (barrier.cluster.wait).
enum class Wait { none, warp, barrier, exited, warpgroup, mbarrier, cluster };

struct ThreadState {
  detail::ThreadCoords coords{};
  unsigned linear = 0, warp = 0, lane = 0;  // in the cluster's threads (the block's without clusters)
  unsigned rank = 0;                         // the block's rank in its cluster (%cluster_ctarank)
  unsigned block_linear = 0;                 // its block's linear index in the grid
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

// __syncthreads of one block of the running cluster.
struct BlockBarrier {
  unsigned arrived = 0, first = 0, line = 0;
  const char* file = nullptr;
};

// barrier.cluster of the running cluster: arrivals of the current phase, the threads' last
// arrival phase (0: none since their last wait), the clocks released into the phase.
struct ClusterBarrier {
  std::uint64_t phase = 1;  // numbers the phases from 1
  unsigned arrived = 0;
  std::vector<std::uint64_t> arrival;  // per thread: the phase it arrived in and has not waited on
  std::vector<std::uint32_t> released, completed;
};

// A cluster launch runs the blocks of one cluster together, as one pool of threads (block r's
// threads rank * block_threads .. + block_threads - 1) over one shared-memory window (block r's
// dynamic shared memory at rank * block_stride); without clusters the cluster is the block.
struct Launch {
  std::string kernel;
  dim3 grid, block;
  dim3 cluster{1, 1, 1};
  unsigned cluster_blocks = 1, block_threads = 0;
  std::size_t block_shared_bytes = 0, block_stride = 0;  // each block's dynamic shared memory
  std::size_t shared_bytes = 0;                          // the cluster's window (blocks x stride)
  std::vector<BlockBarrier> block_barriers;              // per rank
  ClusterBarrier cluster_barrier;
  std::vector<unsigned> block_exited;                    // per rank: its threads that exited
  // Per rank: the cluster-barrier phase of the last remote operation into the block's shared
  // memory (a multicast, a remote arrive), by whom and where; 0: none.
  struct RemoteOp {
    std::uint64_t phase = 0;
    unsigned thread = 0;
    std::uint16_t site = 0;
    const char* what = "";
  };
  std::vector<RemoteOp> last_remote;
  const std::function<void()>* body = nullptr;
  std::vector<ThreadState> threads;
  std::vector<WarpState> warps;
  std::vector<unsigned char> shared_storage;
  unsigned char* shared = nullptr;
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

// The first byte of thread t's block in the cluster's shared-memory window (l.shared + this).
inline std::size_t block_base(const Launch& l, const ThreadState* t) { return t ? t->rank * l.block_stride : 0; }

// Completes the warp's pending access requests into the counters (a warp sync point).
void flush_warp(Launch& l, WarpState& w);

}  // namespace polyfuse::emu
