// Runs a program's generated CUDA kernel on the emulator with random inputs and checks
// it against the reference evaluator (runtime/reference). Every size must be bound.
#pragma once

#include <cstdint>

#include "frontend/program.h"
#include "polyfuse_emu/emulator.h"
#include "runtime/reference/compare.h"
#include "schedule/gpu_options.h"

namespace polyfuse::testing {

struct EmuRun {
  reference::CheckReport check;
  emu::Stats stats;
};

// Emits, builds (cached), runs and compares.
EmuRun run_on_emulator(const Program& program, const GpuOptions& options, std::uint64_t seed = 1);

}  // namespace polyfuse::testing
