// The emulator's own tests name the threads that a round_robin schedule makes fail first, so
// each starts under round_robin and picks any other schedule itself (ScopedSchedule), also
// when POLYFUSE_EMU_SCHEDULE pins one for the kernel tests.
#include <gtest/gtest.h>

#include "polyfuse_emu/emulator.h"

namespace {
class RoundRobinByDefault : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo&) override { polyfuse::emu::options().schedule = polyfuse::emu::Schedule{}; }
};
const bool installed = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new RoundRobinByDefault);
  return true;
}();
}  // namespace
