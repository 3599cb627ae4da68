// The GPU options of the command line (--arch, --block, --warp, --mma, --split-k,
// --stages, --group, --consumer-schedule, --f32-matmul, --dump-after), shared by `compile` and `run`.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "schedule/gpu_options.h"
#include "schedule/gpu_pipeline.h"

namespace polyfuse::tools {

// The flags as the user wrote them ("" and 0 = not given), and which were given.
struct GpuFlags {
  std::string arch, block, warp, mma, consumer_schedule, f32_matmul, cluster;
  int split_k = 0;
  int stages = 0;
  int group = 0;  // read only when group_option was given (0 is refused, not "the default")
  std::vector<std::string> dump_after;
  CLI::Option* group_option = nullptr;
  std::vector<CLI::Option*> registered;  // the tile options (not --dump-after), to see which were given
  bool autotune = false;                 // --autotune (tools/autotune_flag.h)
  CLI::Option* autotune_option = nullptr;

  // The tile flags given on the command line ("--block, --warp"), and --autotune, "" when
  // none; without --f32-matmul when `partition_flags` is false.
  std::string given(bool partition_flags = true) const;
};

// Registers the flags on `app`.
void add_gpu_flags(CLI::App* app, GpuFlags& flags);

// The options the flags select, each value through its parser (gpu_options.h's parse_*,
// the API's parsers too); no --arch: the present GPU's, else sm_90. Also checks
// --dump-after.
GpuOptions gpu_options(const GpuFlags& flags);

// Throws UserError when a tile flag or --dump-after was given although the GPU path does
// not run (`why`, e.g. "--target=cpu has its own blocking"). `partition_flags` false:
// --f32-matmul is allowed (it decides the plan's partition, which --emit=plan prints).
void refuse_gpu_flags(const GpuFlags& flags, const std::string& why, bool partition_flags = true);

}  // namespace polyfuse::tools
