// The kinds of data race the emulator's detectors report (shared memory: race_detector.h,
// global memory between blocks: global_race_detector.h): the later access, then the earlier.
#pragma once

namespace polyfuse::emu {

enum class RaceKind { read_after_write, write_after_read, write_after_write };

// "read-after-write", "write-after-read", "write-after-write".
inline const char* to_string(RaceKind kind) {
  return kind == RaceKind::read_after_write   ? "read-after-write"
         : kind == RaceKind::write_after_read ? "write-after-read"
                                              : "write-after-write";
}

}  // namespace polyfuse::emu
