// Launching the kernels of a plan (schedule/program_plan.h) in order, on the emulator or a GPU:
// the def's tensors as given, every temporary at its offset in one workspace the launch
// allocates (ProgramPlan::workspace_bytes). run_program.h's driver calls it for defs that are
// not one fused kernel.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "polyfuse/compiled_kernel.h"
#include "polyfuse/launch_stats.h"
#include "schedule/program_plan.h"

namespace polyfuse::api {

// The def's tensors by name, each encoded in its element type (row-major, contiguous).
using EncodedTensors = std::map<std::string, std::vector<unsigned char>>;

struct PlanLaunchResult {
  LaunchStats stats;              // emu: every kernel's counters added, buffers per kernel
  std::vector<double> times_ms;   // cuda: each timed run of the whole plan
};

// Runs `kernels` (the plan's, in order: cuda_plan.h's metadata) once on `tensors` and leaves the
// outputs there; on a GPU then `repeats` timed runs (the emulator runs once).
PlanLaunchResult launch_plan(const std::vector<CompiledKernel>& kernels, const ProgramPlan& plan, Backend backend,
                             EncodedTensors& tensors, int repeats);

}  // namespace polyfuse::api
