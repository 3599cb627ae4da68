// The generic and async proxies of shared memory (PTX ISA 8.x "Proxies", 9.7.13.4 "fence.proxy"):
// ordinary loads and stores go through the generic proxy, wgmma operand reads and TMA
// (cp.async.bulk) through the async proxy. Shared memory that a thread wrote with ordinary
// stores and that the async proxy then reads needs a fence.proxy.async by that thread between
// the two (and the usual barrier ordering). Per shared byte this keeps the last ordinary write
// (thread, site, a stamp) and per thread the stamp of its last fence.proxy.async; a write is
// visible to the async proxy when its thread fenced after it. A TMA load writing a byte clears
// it (the async proxy wrote it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace polyfuse::emu {

class AsyncProxy {
 public:
  void begin_launch(std::size_t bytes, unsigned threads);
  void begin_block();
  // An ordinary store of [offset, offset + bytes) by `thread` at `site`.
  void generic_write(std::size_t offset, unsigned bytes, unsigned thread, std::uint16_t site);
  // The async proxy wrote [offset, offset + bytes).
  void async_write(std::size_t offset, unsigned bytes);
  // fence.proxy.async by `thread`.
  void fence(unsigned thread) { fence_[thread] = ++stamp_; }

  struct Unfenced {
    std::size_t offset;  // the first byte
    unsigned thread;     // who wrote it
    std::uint16_t site;  // where
  };
  // The first byte of [offset, offset + bytes) written by an ordinary store that its thread
  // has not fenced since, or nothing.
  std::optional<Unfenced> unfenced(std::size_t offset, unsigned bytes) const;

 private:
  struct Write {
    std::uint64_t stamp = 0;  // < block_start_: none in this block
    std::uint16_t thread = 0;
    std::uint16_t site = 0;
  };
  std::vector<Write> bytes_;
  std::vector<std::uint64_t> fence_;
  std::uint64_t stamp_ = 0, block_start_ = 1;
};

}  // namespace polyfuse::emu
