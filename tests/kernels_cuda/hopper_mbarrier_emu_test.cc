// The mbarrier wrappers of kernels/cuda (pf_mbarrier) on the emulator: the answers of
// test_wait.parity and try_wait.parity over three phases of a barrier every thread arrives on
// (PTX ISA 9.7.13.15 "mbarrier", test_wait/try_wait: the phase before the first counts as
// completed; waiting for parity P succeeds once the phase of parity P completed).
#include <gtest/gtest.h>

#include <vector>

#include "hopper_kernels.h"
#include "polyfuse_emu/emulator.h"

namespace {

TEST(HopperMbarrierEmu, PhasesAndParities) {
  for (unsigned threads : {32u, 128u, 96u}) {
    for (const char* schedule : {"round_robin", "random:3", "warp_ahead:7"}) {
      polyfuse::emu::ScopedSchedule scoped(polyfuse::emu::parse_schedule(schedule));
      std::vector<int> out(threads * 10, -1);
      polyfuse::emu::ScopedBuffer b(out.data(), out.size() * sizeof(int), "out");
      pfh_test::run_mbarrier_phases(out.data(), threads);
      for (unsigned t = 0; t < threads; ++t) {
        const int* r = &out[t * 10];
        EXPECT_EQ(r[0], 1) << "thread " << t << " (" << schedule << "): test_wait(1) before the first phase";
        for (int p = 0; p < 3; ++p) {
          EXPECT_EQ(r[1 + 3 * p], 0) << "thread " << t << " (" << schedule << "): phase " << p
                                     << " complete before the thread arrived";
          EXPECT_EQ(r[2 + 3 * p], 1) << "thread " << t << " (" << schedule << "): test_wait(parity of phase " << p
                                     << ") after its try_wait";
          EXPECT_EQ(r[3 + 3 * p], 0) << "thread " << t << " (" << schedule << "): phase " << p + 1
                                     << " reported complete";
        }
      }
    }
  }
}

}  // namespace
