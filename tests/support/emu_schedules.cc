// Linked into an emulator test program: every test runs under a rotating thread schedule
// (emu_schedules.h).
#include "emu_schedules.h"

namespace {
const bool installed = polyfuse::testing::RotateEmuSchedules::install();
}  // namespace
