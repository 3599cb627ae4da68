// The emulator's thread schedules: round_robin (threads in order), random (a seeded
// permutation, preemption at memory accesses), warp_ahead (one warp runs to the barrier
// first); the same seed repeats a run exactly, and names are parsed strictly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "emu_strict_kernels.h"
#include "error_of.h"
#include "polyfuse_emu/emulator.h"
#include "support/emu_schedules.h"

namespace {
using namespace polyfuse::emu;
using polyfuse::emu::testing::error_of;

constexpr int threads = 128;

// The trace of schedule_trace: per thread, the positions of its three marks.
struct Trace {
  std::vector<int> start, middle, after_barrier;  // thread order of each mark
  std::vector<int> raw;
  bool interleaved = false;  // some thread was preempted between its start and middle marks
};

Trace trace_of(const char* schedule, int accesses) {
  ScopedSchedule s(parse_schedule(schedule));
  std::vector<int> raw(1 + 3 * threads, 0);
  std::vector<float> scratch(threads, 0.f);
  ScopedBuffer bt(raw.data(), raw.size() * 4, "trace"), bs(scratch.data(), scratch.size() * 4, "scratch");
  launch(schedule_trace, dim3(1), dim3(threads), 0, raw.data(), scratch.data(), accesses);
  Trace t;
  t.raw = raw;
  std::vector<int> marks(threads, 0);
  for (int i = 1; i <= 3 * threads; ++i) {
    const int thread = raw[i];
    const int mark = marks[thread]++;
    (mark == 0 ? t.start : mark == 1 ? t.middle : t.after_barrier).push_back(thread);
    if (mark == 1 && raw[i - 1] != thread) t.interleaved = true;
  }
  return t;
}

std::vector<int> identity() {
  std::vector<int> v(threads);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

TEST(EmuSchedule, RoundRobinRunsThreadsInOrder) {
  const Trace t = trace_of("round_robin", 4);
  EXPECT_EQ(t.start, identity());
  EXPECT_FALSE(t.interleaved);
}

TEST(EmuSchedule, RandomIsASeededPermutationWithPreemption) {
  const Trace a = trace_of("random:1", 4), again = trace_of("random:1", 4), b = trace_of("random:2", 4);
  EXPECT_EQ(a.raw, again.raw) << "the same seed repeats the schedule";
  EXPECT_NE(a.raw, b.raw);
  EXPECT_NE(a.start, identity());
  std::vector<int> sorted = a.start;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, identity());
  EXPECT_TRUE(a.interleaved) << "threads are preempted at memory accesses";
  EXPECT_FALSE(trace_of("random:1", 0).interleaved) << "and only there";
}

TEST(EmuSchedule, WarpAheadRunsOneWarpToTheBarrierFirst) {
  bool other_than_warp_0 = false;
  for (const char* schedule : {"warp_ahead:1", "warp_ahead:2", "warp_ahead:3", "warp_ahead:4"}) {
    const Trace t = trace_of(schedule, 4);
    const int warp = t.start[0] / 32;
    other_than_warp_0 |= warp != 0;
    for (int i = 0; i < 32; ++i) {
      ASSERT_EQ(t.start[i], 32 * warp + i) << schedule;
      ASSERT_EQ(t.middle[i], 32 * warp + i) << schedule << ": the warp reaches the barrier before any other starts";
    }
  }
  EXPECT_TRUE(other_than_warp_0);
}

TEST(EmuSchedule, NamesParseStrictly) {
  EXPECT_EQ(parse_schedule("round_robin").kind, ScheduleKind::round_robin);
  const Schedule r = parse_schedule("random:42");
  EXPECT_EQ(r.kind, ScheduleKind::random);
  EXPECT_EQ(r.seed, 42u);
  EXPECT_EQ(parse_schedule("warp_ahead").seed, 1u);
  EXPECT_EQ(to_string(parse_schedule("warp_ahead:7")), "warp_ahead:7");
  for (const char* bad : {"", "fifo", "random:", "random:x", "random:1x", "round_robin:3"})
    EXPECT_THROW(parse_schedule(bad), EmulationError) << bad;
}

TEST(EmuSchedule, TheKernelTestsRunsRotateThroughEverySchedule) {
  if (std::getenv("POLYFUSE_EMU_SCHEDULE")) GTEST_SKIP() << "POLYFUSE_EMU_SCHEDULE pins one schedule";
  std::vector<ScheduleKind> kinds;
  for (int run = 0; run < 3; ++run) kinds.push_back(polyfuse::testing::next_emu_schedule().kind);
  std::sort(kinds.begin(), kinds.end());
  EXPECT_EQ(kinds, (std::vector<ScheduleKind>{ScheduleKind::round_robin, ScheduleKind::random, ScheduleKind::warp_ahead}));
}

}  // namespace
