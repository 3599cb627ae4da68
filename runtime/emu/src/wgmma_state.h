// The asynchronous state of wgmma (PTX ISA 9.7.15.5.2 "wgmma.mma_async", 9.7.15.6 "fence /
// commit_group / wait_group") in one block: the warpgroup rendezvous of each mma_async, and per
// thread the operations in flight. An mma_async reads its shared-memory operands at issue (the
// race detector sees them then) and its result is held here; the thread's accumulator
// registers are poisoned until the wait_group that retires the operation writes the result
// back. Ordinary code that reads or writes registers in flight is an error (the helpers report
// every access: pf::sm90::WgmmaRegs); so is a change of the poisoned registers seen at
// retirement, and an mma_async whose registers ordinary code touched since the last wgmma.fence.
// A further mma_async on the same accumulators chains onto the one in flight.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "host_hooks.h"

namespace polyfuse::emu {

struct WgmmaInFlight {
  float* d = nullptr;                 // the thread's accumulators
  unsigned count = 0;                 // N / 2
  std::vector<float> result;          // what they hold once retired
  const void* a_fragment = nullptr;   // register form: the A registers and their values at issue
  unsigned a_values[4] = {0, 0, 0, 0};
  std::uint64_t group = 0;            // wgmma-group (0: not committed yet)
  std::uint32_t issue_serial = 0;     // race-detector serial of its operand reads
  std::uint16_t site = 0;             // AccessSites index of the mma_async
  unsigned n = 0;
};

struct WgmmaThread {
  std::vector<WgmmaInFlight> in_flight;
  std::uint64_t committed = 0;             // wgmma-groups committed so far
  bool fenced = false;                     // a wgmma.fence since the block started
  std::vector<const void*> touched;        // register sets accessed by ordinary code since then
  // The operand reads of this thread's operations in flight: (wgmma-group, race serial), group 0
  // until committed; retiring a group orders its reads before the thread (sync_clocks.h).
  std::vector<std::pair<std::uint64_t, std::uint32_t>> reads;
  // The operation in flight on accumulators `d` / that reads A registers `a`, or nullptr.
  WgmmaInFlight* on_accumulators(const void* d);
  WgmmaInFlight* on_a_fragment(const void* a);
  bool was_touched(const void* registers) const;
};

// One warpgroup's rendezvous at an mma_async.
struct WarpgroupArrival {
  unsigned arrived = 0;
  pf_host::WgmmaOp op{};           // the first thread's operation (all must match)
  unsigned first_thread = 0;
  std::uint16_t site = 0;
  struct Thread {
    float* d = nullptr;
    const void* a_fragment = nullptr;
    unsigned a_regs[4] = {0, 0, 0, 0};
    std::uint16_t site = 0;
  };
  Thread threads[128];
};

class WgmmaState {
 public:
  void begin_launch(unsigned threads);
  void begin_block();
  WgmmaThread& thread(unsigned t) { return threads_[t]; }
  WarpgroupArrival& arrival(unsigned warpgroup) { return arrivals_[warpgroup]; }

 private:
  std::vector<WgmmaThread> threads_;
  std::vector<WarpgroupArrival> arrivals_;
};

// The bits the emulator fills in-flight accumulators with (a quiet NaN).
constexpr std::uint32_t kWgmmaPoison = 0x7fc0dead;

}  // namespace polyfuse::emu
