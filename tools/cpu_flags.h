// The CPU target's options on the command line (--threads, --constant, --cpu-block,
// --min-parallel-flops), shared by `compile` and `run`.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "schedule/cpu_plan.h"

namespace polyfuse::tools {

// The flags as the user wrote them (0 = not given).
struct CpuFlags {
  int threads = 0;
  CLI::Option* threads_option = nullptr;
  std::vector<std::string> constants;  // --constant NAME, repeated
  CLI::Option* constants_option = nullptr;
  std::string cpu_block;  // --cpu-block MCxNCxKC
  CLI::Option* cpu_block_option = nullptr;
  std::int64_t min_parallel_flops = -1;  // --min-parallel-flops N
  CLI::Option* min_parallel_flops_option = nullptr;
};

// Registers the flags on `app`.
void add_cpu_flags(CLI::App* app, CpuFlags& flags);

// The CPU schedule the flags select, for the CPU this runs on (detect_cpu_target()).
CpuScheduleOptions cpu_schedule_options(const CpuFlags& flags);

// Throws UserError when one of the flags was given although the CPU target does not run
// (`why`, e.g. "the GPU target's threads are its blocks").
void refuse_cpu_flags(const CpuFlags& flags, const std::string& why);

}  // namespace polyfuse::tools
