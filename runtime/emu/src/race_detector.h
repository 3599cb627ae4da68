// Shared-memory race detection for one block, in compute-sanitizer racecheck's model: per
// byte, the last write and the reads since, each with its thread and the synchronisation
// serial at which it happened. Two accesses of different threads, at least one a write, race
// unless a __syncthreads of the block lies between them — or, for two lanes of one warp, a
// warp collective of that warp (__syncwarp, a shuffle, ldmatrix, mma: they order the lanes'
// shared-memory accesses, which the accumulator store and ldmatrix paths rely on).
//
// Ordering is tracked with one counter: every barrier and every warp collective increments
// it; an access remembers its value. An earlier access x is ordered before the current one
// of thread t (warp w) iff x is t's own, or x.serial < the serial of the block's last
// barrier, or x is of warp w and x.serial < the serial of w's last collective.
//
// Reads are kept as up to three readers per byte (the newest; the newest of another warp;
// another lane of the newest's warp since its last collective), which is enough to find a
// conflicting reader for every later write whenever one exists (up to losing the second
// lane of a warp after a third warp read the byte).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "race_kind.h"

namespace polyfuse::emu {

struct AccessRecord {
  std::uint32_t serial = 0;  // 0: no access
  std::uint16_t thread = 0;  // linear index in the block
  std::uint16_t site = 0;    // AccessSites index
};

struct SharedRace {
  RaceKind kind;
  std::size_t offset;    // the first conflicting byte
  AccessRecord earlier;  // the other thread's access
};

// Happens-before edges beyond barriers and warp collectives (mbarrier phases, wgmma and TMA
// retirement: sync_clocks.h). Accesses of asynchronous agents (a TMA load completing on an
// mbarrier, the operand reads of a warpgroup's wgmma, a TMA store's source reads) are recorded
// under ids >= kAgentIdBase, which no barrier or warp collective orders: only the ExtraOrder
// (a thread that observed the agent's completion, directly or through a barrier).
constexpr unsigned kAgentIdBase = 1024;
class ExtraOrder {
 public:
  // Whether the access at `serial` by `id` (thread or agent) is ordered before the current
  // point of thread `thread`.
  virtual bool ordered(std::uint32_t serial, unsigned id, unsigned thread) const = 0;

 protected:
  ~ExtraOrder() = default;
};

class SharedRaceDetector {
 public:
  // A new launch with `bytes` bytes of shared memory and `warps` warps per block.
  void begin_launch(std::size_t bytes, unsigned warps);
  // A new block: nothing before it is related to anything after.
  void begin_block() {
    block_barrier();
    block_start_ = block_sync_;
  }
  // A __syncthreads completed.
  void block_barrier();
  // A collective of warp `warp` completed.
  void warp_sync(unsigned warp);

  // Checks a read / write of [offset, offset + bytes) by `thread` against the unordered
  // accesses of other threads, then records it. Returns the first race.
  std::optional<SharedRace> read(std::size_t offset, unsigned bytes, unsigned thread, std::uint16_t site);
  std::optional<SharedRace> write(std::size_t offset, unsigned bytes, unsigned thread, std::uint16_t site);
  // Checks a write without recording it (a cp.async when it is issued).
  std::optional<SharedRace> check_write(std::size_t offset, unsigned bytes, unsigned thread) const;
  // Records a write without checking it (a cp.async when its wait completes it).
  void record_write(std::size_t offset, unsigned bytes, unsigned thread, std::uint16_t site);

  // Checks a read by `thread` against the last writes without recording it (a wgmma's
  // operands, checked for each thread of its warpgroup; the use of an mbarrier after its init).
  std::optional<SharedRace> check_read(std::size_t offset, unsigned bytes, unsigned thread) const;
  // Records a read by asynchronous agent `id` (>= kAgentIdBase) without checking it.
  void record_agent_read(std::size_t offset, unsigned bytes, unsigned id, std::uint16_t site);
  // Consults `order` (or nothing) in every check from now on.
  void set_extra_order(const ExtraOrder* order) { extra_ = order; }
  // A new serial: accesses before it are < it, accesses after it are >= it (release points).
  std::uint32_t sync_point() { return tick(); }
  std::uint32_t serial() const { return serial_; }
  std::uint32_t block_sync() const { return block_sync_; }
  std::uint32_t warp_sync_serial(unsigned warp) const { return warp < warp_sync_.size() ? warp_sync_[warp] : block_sync_; }

 private:
  struct ByteShadow {
    AccessRecord write, read_a, read_b, read_c;
  };
  bool unordered(const AccessRecord& x, unsigned thread) const;
  std::uint32_t tick();
  std::vector<ByteShadow> shadow_;
  std::vector<std::uint32_t> warp_sync_;  // serial of each warp's last collective or barrier
  std::uint32_t block_sync_ = 0;          // serial of the block's last barrier
  std::uint32_t block_start_ = 0;         // serial of the block's start (older records are another block's)
  std::uint32_t serial_ = 0;
  const ExtraOrder* extra_ = nullptr;
};

}  // namespace polyfuse::emu
