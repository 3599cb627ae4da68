// The register hand-over of setmaxnreg (PTX ISA 9.7.17.1) in one block: per warpgroup, the
// setmaxnreg operations in the order its threads execute them (the first thread to execute the
// k-th one records it; the others must execute the same), and per thread how many it executed.
// The block's pool is its registers at launch (PTX ISA 9.7.17.1: "a pool of available registers
// is maintained per-CTA"): block_threads x the entry count, not the SM's 64K: 384 threads enter
// with 168 registers each, 64512 in all, so a producer at 80 and two consumers at 216 (65536)
// leave the consumers' setmaxnreg.inc waiting forever (seen on an H200, 2026-11-30). The final
// per-thread counts of the warpgroups (a warpgroup that never executed setmaxnreg keeps the
// entry count) must fit the pool.
// setmaxnreg.inc waits on the hardware until the pool has the registers, so only the counts
// once every warpgroup has executed its operations are checked, not their order.
#pragma once

#include <cstdint>
#include <vector>

namespace polyfuse::emu {

// The registers of one block (the register file of an SM: 64K 32-bit registers).
constexpr unsigned kBlockRegisters = 65536;

struct RegisterCountChange {
  unsigned count = 0;      // per thread
  bool increase = false;   // .inc / .dec
  unsigned thread = 0;     // the first thread that executed it
  std::uint16_t site = 0;
};

class RegisterPool {
 public:
  // `threads` in all (a cluster's blocks), `block_threads` per block.
  void begin_launch(unsigned threads, unsigned block_threads);
  void begin_block();
  // The per-thread count a thread starts with: the most that `threads` threads per block can
  // have (64K / threads, at most 255, in units of 8), what ptxas allocates at most under
  // __launch_bounds__(threads, 1).
  // ptxas may allocate fewer (a 256-thread kernel whose largest setmaxnreg is 232 entered with
  // 232, not 248), so this is the most the pool can be, exact where 64K / threads binds (384).
  unsigned entry_count() const { return entry_count_; }
  // The block's registers at launch: what setmaxnreg.dec returns to and setmaxnreg.inc takes from.
  std::uint64_t pool() const { return static_cast<std::uint64_t>(entry_count_) * block_threads_; }
  std::vector<RegisterCountChange>& changes(unsigned warpgroup) { return changes_[warpgroup]; }
  unsigned& executed(unsigned thread) { return executed_[thread]; }
  // The registers of block `rank` (of a cluster; 0 without) with each warpgroup at its latest
  // count, the ones without a setmaxnreg yet at `unknown` per thread.
  std::uint64_t block_registers(unsigned unknown, unsigned rank = 0) const;

 private:
  unsigned threads_ = 0, block_threads_ = 0, entry_count_ = 0;
  std::vector<std::vector<RegisterCountChange>> changes_;  // per warpgroup
  std::vector<unsigned> executed_;                          // per thread
};

}  // namespace polyfuse::emu
