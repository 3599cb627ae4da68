// Checks and counters of the emulator's memory accesses: the registry of global buffers,
// and per-warp logs that group the lanes' accesses into warp-wide requests (the k-th
// access of each lane since the warp's last synchronisation point) to count 32-byte
// global sectors and shared-memory bank conflicts.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "polyfuse_emu/emulator.h"

namespace polyfuse::emu {

struct RegisteredBuffer {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  std::string name;
  std::uint64_t bytes_loaded = 0;  // during the current launch
  std::uint64_t bytes_stored = 0;
};

class BufferRegistry {
 public:
  void add(const void* data, std::size_t bytes, std::string name);
  void remove(const void* data);
  // The buffer that contains [address, address + bytes), or nullptr.
  RegisteredBuffer* find(std::uintptr_t address, std::size_t bytes);
  // Why [address, address + bytes) is not inside a buffer (nearest buffers named).
  std::string describe_miss(std::uintptr_t address, std::size_t bytes) const;
  void reset_counters();
  void collect(Stats& stats) const;

 private:
  std::map<std::uintptr_t, RegisteredBuffer> buffers_;
  RegisteredBuffer* last_ = nullptr;
};
BufferRegistry& buffer_registry();

struct AccessEntry {
  std::uintptr_t address;
  unsigned bytes;
  unsigned char lane;
  unsigned char space;      // pf_host::Space
  unsigned char direction;  // pf_host::Direction
};

class WarpAccessLog {
 public:
  void record(unsigned sequence, const AccessEntry& entry);
  // Counts every pending request into `stats` and empties the log.
  void flush(Stats& stats, std::uintptr_t shared_base);

 private:
  std::vector<std::vector<AccessEntry>> requests_;
  unsigned used_ = 0;
};

// Wavefronts of one warp-wide shared request (32 banks x 4 bytes; lanes grouped in phases
// of 32, 16 or 8 lanes for accesses of <= 4, 8 or 16 bytes); `phases` gets the minimum.
unsigned shared_wavefronts(const AccessEntry* entries, unsigned count, std::uintptr_t shared_base, unsigned& phases);
// Distinct 32-byte sectors touched by one warp-wide global request.
unsigned global_sectors(const AccessEntry* entries, unsigned count);

}  // namespace polyfuse::emu
