// The emulator's own checks: planted bugs are reported as EmulationError naming the kernel,
// block, thread and address/buffer; the process never aborts.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "emu_kernels.h"
#include "error_of.h"
#include "polyfuse_emu/emulator.h"

namespace {
using polyfuse::emu::EmulationError;
using polyfuse::emu::testing::error_of;

TEST(EmuChecks, OutOfBoundsGlobalLoadNamesKernelBlockThreadAndBuffer) {
  std::vector<float> in(64, 1.f), out(64, 0.f);
  polyfuse::emu::ScopedBuffer bi(in.data(), in.size() * 4, "in"), bo(out.data(), out.size() * 4, "out");
  const std::string msg = error_of([&] { polyfuse::emu::launch(planted_global_oob, dim3(2), dim3(32), 0, in.data(), out.data(), 64); });
  EXPECT_NE(msg.find("out-of-bounds global load of 4 bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("kernel 'planted_global_oob'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("block (1,0,0)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("thread (31,0,0)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("buffer 'in'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0x"), std::string::npos) << msg;
}

TEST(EmuChecks, OutOfBoundsSharedStoreNamesThreadAndOffset) {
  std::vector<float> out(64, 0.f);
  polyfuse::emu::ScopedBuffer bo(out.data(), out.size() * 4, "out");
  const std::string msg = error_of([&] { polyfuse::emu::launch(planted_shared_oob, dim3(1), dim3(64), 128, out.data()); });
  EXPECT_NE(msg.find("out-of-bounds shared store of 4 bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("shared offset 128"), std::string::npos) << msg;
  EXPECT_NE(msg.find("thread (32,0,0)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("declared 128 bytes"), std::string::npos) << msg;
}

TEST(EmuChecks, MisalignedVectorLoadIsReported) {
  std::vector<unsigned short> in(8 * 32 + 8, 1), out(8 * 32, 0);
  polyfuse::emu::ScopedBuffer bi(in.data(), in.size() * 2, "in"), bo(out.data(), out.size() * 2, "out");
  const std::string msg = error_of([&] { polyfuse::emu::launch(planted_misaligned_load, dim3(1), dim3(32), 0, in.data(), out.data()); });
  EXPECT_NE(msg.find("misaligned 16-byte global load"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not 16-byte aligned"), std::string::npos) << msg;
  EXPECT_NE(msg.find("thread (1,0,0)"), std::string::npos) << msg;
}

TEST(EmuChecks, DivergentBarrierIsReported) {
  std::vector<float> out(64, 0.f);
  polyfuse::emu::ScopedBuffer bo(out.data(), out.size() * 4, "out");
  const std::string msg = error_of([&] { polyfuse::emu::launch(planted_divergent_barrier, dim3(1), dim3(64), 0, out.data()); });
  EXPECT_NE(msg.find("barrier divergence"), std::string::npos) << msg;
  EXPECT_NE(msg.find("kernel 'planted_divergent_barrier'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("thread (16,0,0)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("emu_kernels.cc:"), std::string::npos) << msg;
}

TEST(EmuChecks, BarrierAfterAThreadExitedIsADeadlock) {
  std::vector<float> out(64, 0.f);
  polyfuse::emu::ScopedBuffer bo(out.data(), out.size() * 4, "out");
  const std::string msg = error_of([&] { polyfuse::emu::launch(planted_early_exit, dim3(1), dim3(64), 0, out.data()); });
  EXPECT_NE(msg.find("barrier divergence (deadlock)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("63 thread(s) wait at __syncthreads"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1 thread(s) have exited, e.g. thread (5,0,0)"), std::string::npos) << msg;
}

TEST(EmuChecks, LanesAtDifferentWarpCollectivesAreReported) {
  std::vector<float> out(32, 0.f);
  polyfuse::emu::ScopedBuffer bo(out.data(), out.size() * 4, "out");
  const std::string msg = error_of([&] { polyfuse::emu::launch(planted_warp_divergence, dim3(1), dim3(32), 0, out.data()); });
  EXPECT_NE(msg.find("warp divergence"), std::string::npos) << msg;
  EXPECT_NE(msg.find("thread (3,0,0)"), std::string::npos) << msg;
}

TEST(EmuChecks, UnregisteredBufferIsOutOfBounds) {
  std::vector<float> in(32, 1.f), out(32, 0.f);
  polyfuse::emu::ScopedBuffer bo(out.data(), out.size() * 4, "out");
  const std::string msg = error_of([&] { polyfuse::emu::launch(strided_copy, dim3(1), dim3(32), 0, in.data(), out.data(), 1); });
  EXPECT_NE(msg.find("not inside any registered buffer"), std::string::npos) << msg;
}

TEST(EmuChecks, TheEmulatorIsUsableAfterAnError) {
  std::vector<float> in(32, 2.f), out(32, 0.f);
  polyfuse::emu::ScopedBuffer bi(in.data(), in.size() * 4, "in"), bo(out.data(), out.size() * 4, "out");
  EXPECT_THROW(polyfuse::emu::launch(planted_early_exit, dim3(1), dim3(32), 0, out.data()), EmulationError);
  polyfuse::emu::launch(strided_copy, dim3(1), dim3(32), 0, in.data(), out.data(), 1);
  EXPECT_EQ(out[31], 2.f);
}

}  // namespace
