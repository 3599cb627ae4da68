// cp.async on the emulator is asynchronous (PTX ISA 9.7.9.25): the data lands at the wait
// that covers its group, touching the destination before is an error naming the pending
// copy, groups are per thread, wait_all commits first, and both operands are checked for
// alignment to the copy size even when no source byte is read.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "emu_strict_kernels.h"
#include "error_of.h"
#include "polyfuse_emu/emulator.h"

namespace {
using namespace polyfuse::emu;
using polyfuse::emu::testing::error_of;
using polyfuse::emu::testing::mentions;

std::vector<unsigned short> iota_bits(std::size_t n) {
  std::vector<unsigned short> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<unsigned short>(i + 1);
  return v;
}

struct ShiftRun {
  std::vector<unsigned short> in = iota_bits(64 * 8), out = std::vector<unsigned short>(64 * 8, 0);
  ScopedBuffer bi{in.data(), in.size() * 2, "in"}, bo{out.data(), out.size() * 2, "out"};
  Stats run(int mode) { return launch(async_shift, dim3(1), dim3(64), 64 * 16, in.data(), out.data(), mode); }
};

TEST(EmuAsync, CorrectPipelineRunsUnderEverySchedule) {
  for (const char* schedule : {"round_robin", "random:3", "warp_ahead:5"}) {
    ScopedSchedule s(parse_schedule(schedule));
    ShiftRun r;
    const Stats stats = r.run(0);
    for (int i = 8; i < 64 * 8; ++i) ASSERT_EQ(r.out[i], r.in[i - 8]) << schedule << " element " << i;
    EXPECT_EQ(stats.async_copies, 64u);
    EXPECT_EQ(stats.buffer("in")->bytes_loaded, 64u * 16);
  }
}

TEST(EmuAsync, ReadingADestinationBeforeItsWaitNamesThePendingCopy) {
  ShiftRun r;
  // round_robin: the last thread to reach the barrier (63) goes on first and reads chunk 62.
  const std::string msg = error_of([&] { r.run(1); });
  EXPECT_TRUE(mentions(msg, {"16-byte shared load at shared offset 992", "kernel 'async_shift'",
                             "block (0,0,0)", "thread (63,0,0)", "touches the destination of a pending cp.async",
                             "16 bytes to shared offset 992", "(buffer 'in' + 992)", "issued by thread (62,0,0)",
                             "in its group 1 of 1 committed", "no cp.async.wait_group/wait_all of thread (62,0,0)"}));
}

TEST(EmuAsync, ACopyLandedAtItsWaitIsAWriteOfItsThread) {
  ShiftRun r;
  // round_robin: thread 0 copies, waits and exits; thread 1 reads chunk 0 with no barrier.
  const std::string msg = error_of([&] { r.run(2); });
  EXPECT_TRUE(mentions(msg, {"shared-memory race (read-after-write)", "thread (1,0,0) loads 16 bytes at shared offset 0",
                             "thread (0,0,0) wrote (a cp.async its wait completed) shared offset 0",
                             "no __syncthreads or collective of warp 0"}));
}

TEST(EmuAsync, EveryScheduleRejectsTheMissingWaitAndTheMissingBarrier) {
  for (const char* schedule : {"random:1", "random:2", "warp_ahead:1", "warp_ahead:2"})
    for (int mode : {1, 2}) {
      ScopedSchedule s(parse_schedule(schedule));
      ShiftRun r;
      const std::string msg = error_of([&] { r.run(mode); });
      EXPECT_TRUE(msg.find("pending cp.async") != std::string::npos || msg.find("shared-memory race") != std::string::npos)
          << schedule << " mode " << mode << ": " << msg;
      EXPECT_TRUE(mentions(msg, {"[schedule ", schedule}));
    }
}

struct GroupsRun {
  std::vector<unsigned short> in = iota_bits(32 * 3 * 8), out = std::vector<unsigned short>(32 * 3 * 8, 0);
  ScopedBuffer bi{in.data(), in.size() * 2, "in"}, bo{out.data(), out.size() * 2, "out"};
  void run(int mode) { launch(async_groups, dim3(1), dim3(32), 32 * 3 * 16, in.data(), out.data(), mode); }
};

TEST(EmuAsync, WaitGroupLeavesTheNewestGroupsPending) {
  GroupsRun r;
  const std::string msg = error_of([&] { r.run(0); });  // wait_group 1: group 2 is still pending
  EXPECT_TRUE(mentions(msg, {"thread (0,0,0)", "shared offset 16 ", "issued by thread (0,0,0)",
                             "in its group 2 of 2 committed"}));
}

TEST(EmuAsync, WaitGroupZeroLeavesUncommittedCopiesPending) {
  GroupsRun r;
  const std::string msg = error_of([&] { r.run(1); });
  EXPECT_TRUE(mentions(msg, {"thread (0,0,0)", "shared offset 32 ", "not committed to a group yet"}));
}

TEST(EmuAsync, WaitAllCommitsAndCompletesEverything) {
  GroupsRun r;
  r.run(2);
  EXPECT_EQ(r.out, r.in);
}

TEST(EmuAsync, DataLandsAtTheWaitOrAtARandomEarlierPoint) {
  std::vector<unsigned short> in = iota_bits(128 * 8), early(128), out(128 * 8);
  ScopedBuffer bi(in.data(), in.size() * 2, "in"), be(early.data(), early.size() * 2, "early"),
      bo(out.data(), out.size() * 2, "out");
  // round_robin: never before the wait (the destination still holds the 0xff poison).
  launch(async_landing, dim3(1), dim3(128), 128 * 16, in.data(), early.data(), out.data());
  for (int t = 0; t < 128; ++t) ASSERT_EQ(early[t], 0xffff) << t;
  EXPECT_EQ(out, in);
  // random: some copies land before their wait, the same ones for the same seed.
  std::vector<unsigned short> first;
  for (int repeat = 0; repeat < 2; ++repeat) {
    ScopedSchedule s(parse_schedule("random:11"));
    std::fill(out.begin(), out.end(), 0);
    launch(async_landing, dim3(1), dim3(128), 128 * 16, in.data(), early.data(), out.data());
    EXPECT_EQ(out, in);
    int landed = 0;
    for (int t = 0; t < 128; ++t) landed += early[t] == in[8 * t];
    EXPECT_GT(landed, 0);
    EXPECT_LT(landed, 128);
    if (repeat == 0) first = early;
    else EXPECT_EQ(early, first) << "the seed decides the landing points";
  }
}

TEST(EmuAsync, CopiesNeverWaitedForAreDroppedAtExit) {
  std::vector<unsigned short> in = iota_bits(32 * 16);
  ScopedBuffer bi(in.data(), in.size() * 2, "in");
  EXPECT_NO_THROW(launch(async_unwaited, dim3(2), dim3(32), 32 * 16, in.data(), 0));
}

TEST(EmuAsync, TheCopyOfAThreadThatExitedWithoutWaitingNeverCompletes) {
  std::vector<unsigned short> in = iota_bits(32 * 16);
  ScopedBuffer bi(in.data(), in.size() * 2, "in");
  const std::string msg = error_of([&] { launch(async_unwaited, dim3(1), dim3(32), 32 * 16, in.data(), 2); });
  EXPECT_TRUE(mentions(msg, {"16-byte shared load at shared offset 0", "thread (1,0,0)", "issued by thread (0,0,0)",
                             "in its group 1 of 1 committed"}));
}

TEST(EmuAsync, TwoPendingCopiesToOneDestinationAreAnError) {
  std::vector<unsigned short> in = iota_bits(32 * 16);
  ScopedBuffer bi(in.data(), in.size() * 2, "in");
  const std::string msg = error_of([&] { launch(async_unwaited, dim3(1), dim3(32), 32 * 16, in.data(), 1); });
  EXPECT_TRUE(mentions(msg, {"cp.async (16 bytes, src-size 16) at shared offset 0", "thread (0,0,0)",
                             "touches the destination of a pending cp.async", "not committed to a group yet"}));
}

TEST(EmuAsync, ZeroFillCopiesNeedAnAlignedSource) {
  std::vector<unsigned short> in = iota_bits(64);
  ScopedBuffer bi(in.data(), in.size() * 2, "in");
  const auto run = [&](int mode) { launch(async_misaligned, dim3(1), dim3(1), 64, in.data(), mode); };
  EXPECT_TRUE(mentions(error_of([&] { run(0); }),
                       {"misaligned cp.async (16 bytes, src-size 0) source", "(not 16-byte aligned)",
                        "kernel 'async_misaligned'", "thread (0,0,0)"}));
  EXPECT_TRUE(mentions(error_of([&] { run(1); }),
                       {"misaligned cp.async (8 bytes, src-size 8) destination", "(not 8-byte aligned)"}));
  EXPECT_TRUE(mentions(error_of([&] { run(2); }), {"misaligned cp.async (8 bytes, src-size 4) source", "(not 8-byte aligned)"}));
  EXPECT_NO_THROW(run(3));
}

}  // namespace
