// Thread schedules for the emulator tests. Every kernel family runs under several schedules
// (round_robin, random, warp_ahead) without running anything twice: the n-th emulator run of
// a test gets the schedule picked by a hash of the test's name and n, so sweeps cycle
// through all three and single-run tests spread over them. POLYFUSE_EMU_SCHEDULE, when set,
// pins one schedule for every run (to repeat a failure: errors end with "[schedule ...]").
//
//   polyfuse::emu::ScopedSchedule s(polyfuse::testing::next_emu_schedule());
//
// Header-only: for test programs that link polyfuse_emu.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "polyfuse_emu/emulator.h"

namespace polyfuse::testing {

inline emu::Schedule next_emu_schedule() {
  if (const char* pinned = std::getenv("POLYFUSE_EMU_SCHEDULE"); pinned && *pinned) return emu::parse_schedule(pinned);
  static std::string test;
  static std::uint64_t run = 0;
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : std::string();
  if (name != test) {
    test = name;
    run = 0;
  }
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a: the same schedules on every platform
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  const std::uint64_t n = h % 3 + run++;
  emu::Schedule s;
  s.kind = static_cast<emu::ScheduleKind>(n % 3);
  s.seed = 1 + (h >> 8) % 997 + n / 3;
  return s;
}

// Before every test: options().schedule = next_emu_schedule() (for tests that launch
// directly). Register once per test program: RotateEmuSchedules::install().
class RotateEmuSchedules : public ::testing::EmptyTestEventListener {
 public:
  static bool install() {
    ::testing::UnitTest::GetInstance()->listeners().Append(new RotateEmuSchedules);
    return true;
  }
  void OnTestStart(const ::testing::TestInfo&) override { emu::options().schedule = next_emu_schedule(); }
  void OnTestEnd(const ::testing::TestInfo&) override { emu::options().schedule = emu::Schedule{}; }
};

}  // namespace polyfuse::testing
