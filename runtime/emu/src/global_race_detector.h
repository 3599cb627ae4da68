// Global-memory races between the blocks of one launch. CUDA orders nothing between two
// blocks of a launch (they may run in any order, or at the same time), so a block that
// writes bytes another block wrote or read, or reads bytes another block wrote, races with
// it; atomics of different blocks on the same bytes are the exception. (A block reading what
// another wrote is not made legal by the order in which the emulator happens to run them.)
// Accesses within one block are not checked here (barriers order them; not modelled).
//
// Per byte of a registered buffer: the block that last wrote it (and whether atomically)
// and the block that read it (or "several"). The shadow is kept in 4 KiB pages of buffer,
// allocated when first touched and freed after the launch; at most `max_pages` pages
// (8 MiB of buffers, 64 MiB of shadow) are tracked per launch, the rest unchecked.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "race_kind.h"

namespace polyfuse::emu {

struct GlobalRace {
  RaceKind kind;
  std::uintptr_t address;  // the first conflicting byte
  unsigned other_block;    // linear index of the other block
  bool other_atomic;       // the other block's write was atomic
  bool several_readers;    // write_after_read: more than one other block read the byte
};

class GlobalRaceDetector {
 public:
  static constexpr std::size_t page_bytes = 4096;
  static constexpr std::size_t max_pages = 2048;

  // Forgets the previous launch.
  void begin_launch();
  // Checks then records an access by block `block` (linear index) of [address, address +
  // bytes), inside the registered buffer that starts at `buffer_begin`.
  enum class Op { load, store, atomic };
  std::optional<GlobalRace> access(std::uintptr_t buffer_begin, std::uintptr_t address, unsigned bytes, Op op,
                                   unsigned block);

 private:
  struct ByteShadow {
    std::uint32_t writer = 0;  // block + 1, bit 31: atomic; 0: none
    std::uint32_t reader = 0;  // block + 1; several_readers; 0: none
  };
  struct Page {
    ByteShadow bytes[page_bytes];
  };
  static constexpr std::uint32_t atomic_bit = 0x80000000u;
  static constexpr std::uint32_t several_readers = 0x7fffffffu;
  ByteShadow* shadow(std::uintptr_t buffer_begin, std::uintptr_t address);
  std::unordered_map<std::uintptr_t, std::vector<std::unique_ptr<Page>>> buffers_;
  std::size_t pages_ = 0;
};

}  // namespace polyfuse::emu
