// The emulator's Hopper checks (issue 17, item 2): each planted bug of emu_hopper_kernels.cc is
// reported as an EmulationError that names the rule and the place:
//   * accumulators read or written between wgmma.mma_async and its wait_group;
//   * operand tiles overwritten by a warp that retired only its own share of the wgmma;
//   * shared memory written by ordinary stores and read by wgmma or a TMA store without
//     fence.proxy.async;
//   * a wait on the wrong mbarrier phase (an early read of the TMA box; a deadlock);
//   * a transaction count that never completes (a deadlock naming the barrier);
//   * a TMA box or a wgmma descriptor outside the block's shared memory;
//   * a warpgroup that does not start at a warp index divisible by 4.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "emu_hopper_kernels.h"
#include "error_of.h"
#include "polyfuse_emu/emulator.h"
#include "runtime/tma/tensor_map.h"

namespace {
using emu_hopper::TmaBug;
using emu_hopper::WgmmaBug;
using polyfuse::emu::ScopedBuffer;
using polyfuse::emu::testing::error_of;
using polyfuse::emu::testing::mentions;
namespace tma = polyfuse::tma;

std::string wgmma_error(WgmmaBug bug, unsigned threads = 128) {
  std::vector<float> out(64 * 8, 0.f);
  ScopedBuffer b(out.data(), out.size() * 4, "out");
  return error_of([&] { emu_hopper::launch_wgmma(bug, out.data(), threads); });
}

// A 64 x 64 f16 tensor, a box of {64, 16} (2048 bytes) at (0, 0).
struct TmaSetup {
  std::vector<unsigned short> tensor = std::vector<unsigned short>(64 * 64, 0x3c00);
  std::vector<unsigned char> buffer = std::vector<unsigned char>(2048, 0);
  static constexpr int box_bytes = 2048;
  std::string error(TmaBug bug) {
    ScopedBuffer bt(tensor.data(), tensor.size() * 2, "tensor"), bb(buffer.data(), buffer.size(), "box");
    const tma::TensorMapBytes map = tma::encode_tiled(
        tma::tiled_2d(tma::DataType::float16, tensor.data(), 64, 64, 128, 64, 16, tma::Swizzle::none), tma::Target::emulator);
    return error_of([&] { emu_hopper::launch_tma(bug, map, buffer.data(), box_bytes); });
  }
};

TEST(EmuHopperChecks, AccumulatorReadBeforeWaitGroup) {
  const std::string msg = wgmma_error(WgmmaBug::accumulator_read);
  EXPECT_TRUE(mentions(msg, {"wgmma accumulators touched before wgmma.wait_group", "kernel 'planted_wgmma_accumulator_touched'",
                             "reads or writes the accumulator registers of the m64n8k16 wgmma.mma_async", "still in flight",
                             "wgmma.wait_group must retire it"}));
}

TEST(EmuHopperChecks, AccumulatorWriteBeforeWaitGroup) {
  const std::string msg = wgmma_error(WgmmaBug::accumulator_write);
  EXPECT_TRUE(mentions(msg, {"wgmma accumulators touched before wgmma.wait_group",
                             "kernel 'planted_wgmma_accumulator_touched'", "still in flight"}));
}

TEST(EmuHopperChecks, OperandsOverwrittenAfterOnlyTheOwnWarpsWait) {
  const std::string msg = wgmma_error(WgmmaBug::operands_overwritten_after_own_wait);
  EXPECT_TRUE(mentions(msg, {"shared-memory race", "kernel 'planted_wgmma_operands_overwritten_after_own_wait'",
                             "the wgmma.mma_async of warpgroup 0", "each of its four warps"}))
      << msg;
  std::vector<float> out(64 * 8, 0.f);  // the control: after a __syncthreads every warp has waited
  ScopedBuffer b(out.data(), out.size() * 4, "out");
  EXPECT_NO_THROW(emu_hopper::launch_wgmma(WgmmaBug::operands_overwritten_after_barrier, out.data(), 128));
}

TEST(EmuHopperChecks, WgmmaReadsOrdinaryStoresWithoutProxyFence) {
  const std::string msg = wgmma_error(WgmmaBug::no_proxy_fence);
  EXPECT_TRUE(mentions(msg, {"missing fence.proxy.async", "wgmma.mma_async m64n8k16.f16 operand A",
                             "kernel 'planted_wgmma_without_proxy_fence'", "wrote with an ordinary store",
                             "fence.proxy.async.shared::cta"}));
}

TEST(EmuHopperChecks, TmaStoreOfOrdinaryStoresWithoutProxyFence) {
  const std::string msg = TmaSetup().error(TmaBug::store_without_proxy_fence);
  EXPECT_TRUE(mentions(msg, {"missing fence.proxy.async", "TMA store (cp.async.bulk.tensor) source chunk",
                             "kernel 'planted_tma_store_without_proxy_fence'", "wrote with an ordinary store"}));
}

TEST(EmuHopperChecks, WaitOnTheWrongParityReadsTheBoxBeforeItLands) {
  const std::string msg = TmaSetup().error(TmaBug::wrong_parity);
  EXPECT_TRUE(mentions(msg, {"kernel 'planted_mbarrier_wrong_parity'", "touches the destination of TMA load #1",
                             "still in flight", "the mbarrier at shared offset 0 (phase 0, parity 0",
                             "no thread has observed that phase complete yet"}));
}

TEST(EmuHopperChecks, WaitForAPhaseNobodyArrivesOnIsADeadlock) {
  std::vector<int> out(128, 0);
  ScopedBuffer b(out.data(), out.size() * 4, "out");
  const std::string msg = error_of([&] { emu_hopper::launch_wait_for_next_phase(out.data(), 128); });
  EXPECT_TRUE(mentions(msg, {"deadlock on an mbarrier", "kernel 'planted_mbarrier_wait_for_next_phase'",
                             "128 thread(s) wait on mbarriers whose phase can never complete",
                             "waits for the phase of parity 1", "the mbarrier at shared offset 0 (phase 1, parity 1",
                             "128 arrival(s) will never come"}));
}

TEST(EmuHopperChecks, TransactionCountThatNeverCompletesIsADeadlockNamingTheBarrier) {
  const std::string msg = TmaSetup().error(TmaBug::transaction_count_short);
  EXPECT_TRUE(mentions(msg, {"deadlock on an mbarrier", "kernel 'planted_tma_transaction_count_short'",
                             "the mbarrier at shared offset 0 (phase 0, parity 0",
                             "its transaction count waits for 16 bytes that no TMA load in flight will deliver"}));
}

TEST(EmuHopperChecks, TmaBoxOutsideSharedMemory) {
  const std::string msg = TmaSetup().error(TmaBug::box_outside_shared);
  EXPECT_TRUE(mentions(msg, {"TMA load box (2048 bytes at shared offset 1024) lies outside the block's 2560 bytes of "
                             "dynamic shared memory",
                             "kernel 'planted_tma_box_outside_shared'", "thread (0,0,0)"}));
}

TEST(EmuHopperChecks, WgmmaDescriptorOutsideSharedMemory) {
  const std::string msg = wgmma_error(WgmmaBug::descriptor_outside);
  EXPECT_TRUE(mentions(msg, {"wgmma.mma_async m64n8k16.f16 operand B element", "lies outside the block's 2304 bytes of "
                             "dynamic shared memory", "descriptor start 2176", "kernel 'planted_wgmma_descriptor_outside'"}));
}

TEST(EmuHopperChecks, WarpgroupNotStartingAtAWarpIndexDivisibleBy4) {
  // 5 warps: warp 4's warpgroup (warps 4..7) does not exist
  const std::string msg = wgmma_error(WgmmaBug::misaligned_warpgroup, 160);
  EXPECT_TRUE(mentions(msg, {"misaligned warpgroup", "by warp 4", "kernel 'planted_misaligned_warpgroup'",
                             "warps 4..7", "starting at a warp index divisible by 4"}));
  // 8 warps: warps 1..3 wait in warpgroup 0 for warp 0, warp 4 in warpgroup 1 for warps 5..7
  const std::string deadlock = wgmma_error(WgmmaBug::misaligned_warpgroup, 256);
  EXPECT_TRUE(mentions(deadlock, {"deadlock at wgmma.mma_async", "warp(s) 1, 2, 3 of warpgroup 0 (warps 0..3)",
                                  "warp 0 has exited", "misaligned warpgroup?"}));
}

}  // namespace
