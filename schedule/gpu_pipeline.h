// The GPU pass driver: a flat list of passes from the kernel plan to the mapped,
// contracted schedule tree with copy statements, as Halide's Lower.cpp lists its
// passes. Any pass's output can be dumped (`--dump-after=PASS|all`).
#pragma once

#include <isl/cpp.h>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// Which pass outputs to print, and where.
struct PassDumps {
  std::vector<std::string> after;  // pass names, or "all"
  std::ostream* out = nullptr;     // where dumps go (nullptr: nowhere)
};

// The pass names in pipeline order: initial, block_tile, warp_tile, split_k,
// strip_mine_k, contract_to_mma, prefetch, insert_copies, map_to_gpu.
const std::vector<std::string>& gpu_pass_names();

// Checks `names` against gpu_pass_names() (and "all"); UserError naming the bad one.
void validate_dump_request(const std::vector<std::string>& names);

// Runs every pass on `plan` with `options` and returns the final tree. Each pass that
// fails with an isl error is reported as an InternalError naming the pass.
isl::schedule build_gpu_schedule(const KernelPlan& plan, const GpuOptions& options, const PassDumps& dumps = {});

}  // namespace polyfuse
