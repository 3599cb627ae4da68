// What one launch reports. On the emulator backend: what the kernel did, counted by the
// emulator (bytes and 32-byte sectors of global memory, shared-memory bank conflicts,
// barriers, asynchronous copies, ... and the bytes of each buffer); a GPU launch reports no
// counters (time it with CUDA events, profile it with ncu).
//
//   polyfuse::LaunchStats s = kernel.run_on_host({A, B, C});
//   std::puts(s.summary().c_str());   // stats: global_bytes_loaded=... global_bytes_stored=... shared_bank_conflicts=0
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace polyfuse {

struct LaunchStats {
  // Bytes moved to and from one tensor argument.
  struct Buffer {
    std::string name;
    std::uint64_t bytes_loaded = 0;
    std::uint64_t bytes_stored = 0;
  };

  bool emulated = false;  // false: a GPU launch (no counters)
  std::vector<std::pair<std::string, std::uint64_t>> counters;  // in the emulator's order
  std::vector<Buffer> buffers;                                   // the arguments touched, in order

  // The counter `name` (e.g. "global_bytes_stored"); 0 when there is none.
  std::uint64_t counter(std::string_view name) const;
  // The bytes of the argument `name`, or nullptr.
  const Buffer* buffer(std::string_view name) const;
  // "stats: global_bytes_loaded=N global_bytes_stored=N shared_bank_conflicts=N" ("" on a GPU).
  std::string summary() const;
  // Every counter once, "stats: name=N name=N ...", then one line per buffer
  // ("buffer A: loaded=N stored=N"), each line ending in a newline ("" on a GPU).
  std::string details() const;
};

}  // namespace polyfuse
