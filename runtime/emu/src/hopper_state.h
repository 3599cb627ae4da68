// The Hopper state of one emulated launch (a member of Launch): mbarriers, the proxies of
// shared memory, the sync clocks that order through mbarriers, wgmma in flight, setmaxnreg counts, TMA stores
// whose sources are still being read, and the threads waiting on an mbarrier.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "async_proxy.h"
#include "mbarrier.h"
#include "register_pool.h"
#include "sync_clocks.h"
#include "wgmma_state.h"

namespace polyfuse::emu {

// What a thread suspended in mbarrier.try_wait waits for.
struct MbarrierWait {
  std::size_t barrier = 0;
  unsigned parity = 0;
  std::uint16_t site = 0;
};

// A TMA store whose shared-memory source the copy engine may still read (until the issuing
// thread's cp.async.bulk.wait_group.read covers its group).
struct PendingStore {
  std::size_t offset = 0;
  std::uint64_t bytes = 0;
  unsigned thread = 0;
  std::uint64_t group = 0;  // 0: not committed yet
  std::uint16_t site = 0;
};

struct HopperState {
  MbarrierTable barriers;
  AsyncProxy proxy;
  SyncClocks clocks;
  WgmmaState wgmma;
  RegisterPool registers;                     // setmaxnreg
  std::vector<MbarrierWait> waits;            // per thread (valid while it waits)
  std::vector<PendingStore> stores;
  std::vector<std::uint64_t> bulk_committed;  // per thread: bulk groups committed
  std::uint64_t tma_operations = 0;           // numbers the TMA loads of the launch
};

}  // namespace polyfuse::emu
