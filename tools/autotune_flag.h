// `--autotune` of `compile` and `run`: the tile options the autotuner (runtime/api/autotune.h)
// chooses for one def, its ranked table printed. With a GPU of the target's architecture the
// candidates are timed; without one they are ranked statically and the table says
// "could not time: no GPU (static ranking only)". The tile flags (--block, --warp, --mma,
// --split-k, --stages, --group, --consumer-schedule) are what it chooses: given with
// --autotune, they are refused; --arch and --f32-matmul are kept.
#pragma once

#include <ostream>
#include <string>

#include "frontend/program.h"
#include "schedule/gpu_options.h"
#include "tools/gpu_flags.h"
#include "tools/program_input.h"

namespace polyfuse::tools {

// The options of `flags` with the autotuner's winner for `program` (a def of `input`) as the
// tiles. Prints the report to `report`; `summary` (if given) receives its last line
// ("autotuned: <config> (timed|static)"). Throws UserError for a tile flag given with
// --autotune and for what the autotuner refuses (a plan of several kernels, unbound sizes).
GpuOptions autotuned_gpu_options(const GpuFlags& flags, const ProgramInput& input, const Program& program,
                                 std::ostream& report, std::string* summary = nullptr);

}  // namespace polyfuse::tools
