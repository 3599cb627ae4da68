// Runs a program's generated CUDA kernel on the emulator with random inputs and checks
// it against the exact reference (runtime/reference: check_outputs). Every size must be
// bound.
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
  reference::TensorData outputs;  // every input and output after the run, decoded
};

// Emits, builds (cached), runs and compares. With `kernel_program` (the same def with
// sizes left unbound) the kernel is generated from it and gets `program`'s sizes as
// arguments, so one build serves every shape.
EmuRun run_on_emulator(const Program& program, const GpuOptions& options, std::uint64_t seed = 1,
                       const Program* kernel_program = nullptr);

}  // namespace polyfuse::testing
