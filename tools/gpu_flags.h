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
  GpuOptionText text;
  std::vector<std::string> dump_after;
};

// Registers the flags on `app`.
void add_gpu_flags(CLI::App* app, GpuFlags& flags);

// The options the flags select (gpu_options_from_text); also checks --dump-after.
GpuOptions gpu_options(const GpuFlags& flags);

}  // namespace polyfuse::tools
