// The GPU options of the command line (--arch, --block, --warp, --mma, --split-k,
// --stages, --dump-after), shared by `compile` and `run`.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "schedule/gpu_options.h"
#include "schedule/gpu_pipeline.h"

namespace polyfuse::tools {

// The flags as the user wrote them ("" = not given).
struct GpuFlags {
  std::string arch = "sm_90";
  std::string block, warp, mma;
  int split_k = 1;
  int stages = 2;
  std::vector<std::string> dump_after;
};

// Registers the flags on `app`.
void add_gpu_flags(CLI::App* app, GpuFlags& flags);

// The options the flags select: the arch's defaults, then the given flags. Without
// --warp, the warp tile is min(64, block) in M and N and block.k / split-k in K.
// UserError for malformed values (validation against the arch happens at compile time).
GpuOptions gpu_options(const GpuFlags& flags);

}  // namespace polyfuse::tools
