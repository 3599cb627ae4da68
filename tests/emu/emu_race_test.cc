// The emulator's race detector: shared-memory races between threads with no barrier (or,
// within a warp, no warp collective) between them, and global-memory races between blocks,
// each reported with both threads (blocks) and the addresses; correct kernels stay quiet.
#include <gtest/gtest.h>

#include <vector>

#include "emu_strict_kernels.h"
#include "error_of.h"
#include "polyfuse_emu/emulator.h"

namespace {
using namespace polyfuse::emu;
using polyfuse::emu::testing::error_of;
using polyfuse::emu::testing::mentions;

struct SharedRun {
  std::vector<float> out = std::vector<float>(64, -1.f);
  ScopedBuffer bo{out.data(), out.size() * 4, "out"};
  void run(int mode) { launch(shared_race, dim3(1), dim3(64), 64 * 4, out.data(), mode); }
};

TEST(EmuRaces, BarrierOrderedAndWarpOrderedKernelsAreQuiet) {
  for (const char* schedule : {"round_robin", "random:4", "warp_ahead:4"}) {
    ScopedSchedule s(parse_schedule(schedule));
    SharedRun r;
    r.run(0);
    for (int t = 0; t < 64; ++t) EXPECT_EQ(r.out[t], (t + 1) % 64) << schedule;
    r.run(5);
    for (int t = 0; t < 64; ++t) EXPECT_EQ(r.out[t], t ^ 1) << schedule;
  }
}

TEST(EmuRaces, ReadAfterWriteAcrossWarps) {
  SharedRun r;
  EXPECT_TRUE(mentions(error_of([&] { r.run(1); }),
                       {"shared-memory race (read-after-write) in kernel 'shared_race', block (0,0,0)",
                        "thread (32,0,0) loads 4 bytes at shared offset 0", "thread (0,0,0) wrote shared offset 0",
                        "with no __syncthreads between them (warps 0 and 1)"}));
}

TEST(EmuRaces, WriteAfterReadAcrossWarps) {
  SharedRun r;
  EXPECT_TRUE(mentions(error_of([&] { r.run(2); }),
                       {"shared-memory race (write-after-read)", "thread (32,0,0) stores 4 bytes at shared offset 128",
                        "thread (0,0,0) read shared offset 128"}));
}

TEST(EmuRaces, WriteAfterWriteAcrossWarps) {
  SharedRun r;
  EXPECT_TRUE(mentions(error_of([&] { r.run(3); }),
                       {"shared-memory race (write-after-write)", "thread (32,0,0) stores 4 bytes at shared offset 0",
                        "thread (0,0,0) wrote shared offset 0"}));
}

TEST(EmuRaces, LanesOfOneWarpNeedAWarpCollective) {
  SharedRun r;
  EXPECT_TRUE(mentions(error_of([&] { r.run(4); }),
                       {"shared-memory race (write-after-read)", "thread (1,0,0) stores 4 bytes at shared offset 4",
                        "thread (0,0,0) read shared offset 4",
                        "no __syncthreads or collective of warp 0 between them (lanes of one warp)"}));
}

TEST(EmuRaces, EveryScheduleFindsEveryPlantedRace) {
  for (const char* schedule : {"random:1", "random:9", "warp_ahead:1", "warp_ahead:7"})
    for (int mode : {1, 2, 3, 4}) {
      ScopedSchedule s(parse_schedule(schedule));
      SharedRun r;
      EXPECT_TRUE(mentions(error_of([&] { r.run(mode); }), {"shared-memory race", schedule})) << "mode " << mode;
    }
}

TEST(EmuRaces, TheRaceCheckCanBeTurnedOff) {
  const bool saved = options().race_check;
  options().race_check = false;
  SharedRun r;
  EXPECT_NO_THROW(r.run(1));
  options().race_check = saved;
}

struct GlobalRun {
  std::vector<float> out = std::vector<float>(64, 0.f);
  ScopedBuffer bo{out.data(), out.size() * 4, "out"};
  void run(int mode) { launch(global_race, dim3(2), dim3(32), 0, out.data(), mode); }
};

TEST(EmuRaces, BlocksWritingTheirOwnElementsOrUsingAtomicsAreQuiet) {
  GlobalRun r;
  r.run(0);
  r.out.assign(64, 0.f);
  r.run(4);
  for (int t = 0; t < 32; ++t) EXPECT_EQ(r.out[t], 2.f);
}

TEST(EmuRaces, TwoBlocksWritingOneAddress) {
  GlobalRun r;
  EXPECT_TRUE(mentions(error_of([&] { r.run(1); }),
                       {"global-memory race between blocks (write-after-write) in kernel 'global_race', block (1,0,0), "
                        "thread (0,0,0)",
                        "stores 4 bytes", "but block (0,0,0) wrote", "(buffer 'out' + 0) earlier in this launch"}));
}

TEST(EmuRaces, ABlockReadingWhatAnotherWrote) {
  GlobalRun r;
  EXPECT_TRUE(mentions(error_of([&] { r.run(2); }),
                       {"(read-after-write)", "block (1,0,0), thread (0,0,0)", "loads 4 bytes", "but block (0,0,0) wrote"}));
}

TEST(EmuRaces, ABlockWritingWhatAnotherRead) {
  GlobalRun r;
  EXPECT_TRUE(mentions(error_of([&] { r.run(3); }),
                       {"(write-after-read)", "block (1,0,0), thread (0,0,0)", "stores 4 bytes", "but block (0,0,0) read"}));
}

}  // namespace
