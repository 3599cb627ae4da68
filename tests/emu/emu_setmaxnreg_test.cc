// The emulator's model of setmaxnreg (runtime/emu/src/setmaxnreg_hooks.cc, register_pool.h):
// a warp-specialised block of one producer and two consumer warpgroups hands registers over
// without a report, and each planted breach of the PTX ISA's rules is an EmulationError naming
// the kernel, the block and the thread:
//   * warps of one warpgroup executing different setmaxnreg (.sync.aligned);
//   * a warp of a warpgroup skipping the setmaxnreg the others execute;
//   * final counts over the block's registers at launch (384 threads x 168): a consumer asking
//     for 248, and the split an H200 hung on (2026-11-30), a producer at 80 and consumers at 216;
//   * a count that is not a multiple of 8 in 24 .. 256.
#include "polyfuse_emu/cuda_emulation.h"
#include "polyfuse_cuda.cuh"

#include <gtest/gtest.h>

#include <string>

#include "error_of.h"
#include "polyfuse_emu/emulator.h"

enum class Plant {
  none,
  mismatched_count,
  skipped_by_a_warp,
  over_the_register_file,
  count_not_a_multiple_of_8,
  over_the_launch_registers
};

// 384 threads: warpgroup 0 decreases to 40, warpgroups 1 and 2 increase to 232 (40 + 2 x 232
// = 504 of 512 per thread slot), as hopper_gemm_kernel's kernels do; `plant` breaks it.
extern "C" __global__ void __launch_bounds__(384, 1) warp_specialised_registers(int plant, int* out) {
  using namespace pf::sm90;
  const Plant p = static_cast<Plant>(plant);
  if (warpgroup_index() == 0) {
    if (p == Plant::mismatched_count && warp_in_warpgroup() == 3) setmaxnreg_dec<48>();
    else if (p == Plant::over_the_launch_registers) setmaxnreg_dec<80>();
    else if (p == Plant::skipped_by_a_warp && warp_in_warpgroup() == 2) {
    } else setmaxnreg_dec<40>();
  } else if (p == Plant::over_the_register_file) {
    setmaxnreg_inc<248>();
  } else if (p == Plant::over_the_launch_registers) {
    setmaxnreg_inc<216>();  // 80 + 2 x 216 = 512 per thread slot: 65536 > 384 x 168
  } else if (p == Plant::count_not_a_multiple_of_8) {
    ::pf_host::setmaxnreg(230, true);  // the wrapper's static_assert refuses it: the hook directly
  } else {
    setmaxnreg_inc<232>();
  }
  out[threadIdx.x] = static_cast<int>(threadIdx.x);
}

namespace {

std::string error_of_plant(Plant plant) {
  int out[384] = {};
  polyfuse::emu::ScopedBuffer buffer(out, sizeof out, "out");
  return polyfuse::emu::testing::error_of([&] {
    polyfuse::emu::launch(warp_specialised_registers, dim3(1), dim3(384), 0, static_cast<int>(plant), out);
  });
}

using polyfuse::emu::testing::mentions;

TEST(EmuHopperChecks, SetmaxnregProducerConsumerSplitIsAccepted) {
  int out[384] = {};
  polyfuse::emu::ScopedBuffer buffer(out, sizeof out, "out");
  EXPECT_NO_THROW(polyfuse::emu::launch(warp_specialised_registers, dim3(2), dim3(384), 0, 0, out));
  EXPECT_EQ(out[383], 383);
}

TEST(EmuHopperChecks, SetmaxnregMismatchedInAWarpgroup) {
  const std::string msg = error_of_plant(Plant::mismatched_count);
  EXPECT_TRUE(mentions(msg, {"warpgroup divergence at setmaxnreg", "kernel 'warp_specialised_registers'", "block (0,0,0)",
                             "setmaxnreg.dec 48", "setmaxnreg.dec 40", "warpgroup 0", ".sync.aligned"}))
      << msg;
}

TEST(EmuHopperChecks, SetmaxnregSkippedByAWarpOfTheWarpgroup) {
  const std::string msg = error_of_plant(Plant::skipped_by_a_warp);
  EXPECT_TRUE(mentions(msg, {"warpgroup divergence at setmaxnreg", "kernel 'warp_specialised_registers'", "thread (64,0,0)",
                             "ended after 0 setmaxnreg", "setmaxnreg.dec 40"}))
      << msg;
}

TEST(EmuHopperChecks, SetmaxnregOverTheRegisterFileOfTheBlock) {
  const std::string msg = error_of_plant(Plant::over_the_register_file);
  EXPECT_TRUE(mentions(msg, {"kernel 'warp_specialised_registers'", "block (0,0,0)", "setmaxnreg.inc 248",
                             "registers", "block's pool of 64512", "168 per thread at launch"}))
      << msg;
}

// The split of the sm_90a kernels with thread-copied operands before 2026-11-30: fine under the
// SM's 64K, over the 64512 registers 384 threads enter with; their consumers hung on an H200.
TEST(EmuHopperChecks, SetmaxnregOverTheRegistersOfTheLaunch) {
  const std::string msg = error_of_plant(Plant::over_the_launch_registers);
  EXPECT_TRUE(mentions(msg, {"setmaxnreg.inc 216", "kernel 'warp_specialised_registers'", "65536",
                             "block's pool of 64512", "168 per thread at launch",
                             "warpgroup 0: 80, warpgroup 1: 216, warpgroup 2: 216"}))
      << msg;
}

TEST(EmuHopperChecks, SetmaxnregCountNotAMultipleOf8) {
  const std::string msg = error_of_plant(Plant::count_not_a_multiple_of_8);
  EXPECT_TRUE(mentions(msg, {"setmaxnreg.inc 230", "kernel 'warp_specialised_registers'", "thread (",
                             "a multiple of 8 in 24 .. 256"}))
      << msg;
}

}  // namespace
