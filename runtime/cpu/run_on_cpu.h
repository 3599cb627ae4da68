// `polyfuse run --target=cpu` as a library call: emit C++ for a program, build and load
// it (cpu_module.h), run it on random inputs, and check its outputs against the exact
// reference on the same inputs (runtime/reference/compare.h: check_outputs).
#pragma once

#include <cstdint>
#include <string>

#include "frontend/program.h"
#include "runtime/cpu/cpu_module.h"
#include "runtime/reference/compare.h"
#include "schedule/cpu_plan.h"

namespace polyfuse::cpu_runtime {

// How run_on_cpu compiles and times.
struct CpuRunOptions {
  CpuScheduleOptions schedule{.target = detect_cpu_target(), .blocking = {}};
  CpuBuildOptions build;
  int timed_runs = 3;  // runs after the checked one; the best time is reported (0: none)
};

// What one run gave.
struct RunReport {
  reference::CheckReport check;  // outputs against the exact reference
  double seconds = 0;            // best of the timed runs (the checked run if none)
  double flops = 0;              // 2 per multiply-add of every reduction statement
  std::string library;           // the shared object that ran
  bool cached = false;           // no compiler ran
  double build_seconds = 0;

  // GFLOP/s of the best run (0 without reductions).
  double gflops() const { return seconds > 0 ? flops / seconds * 1e-9 : 0; }
  // "check: ok (max abs err E, max rel err R)\ntime: 0.123 ms (12.3 GFLOP/s)" (no newline at the end).
  std::string to_string() const;
};

// Runs `program` (every size bound) on the CPU on reference::random_tensors(program,
// seed) and checks every output against reference::check_outputs. Throws UserError for what
// the CPU target does not handle, std::runtime_error when the build fails.
RunReport run_on_cpu(const Program& program, std::uint64_t seed,
                     const CpuRunOptions& options = {});

// The same with the C++ `source` for `program` given instead of emitted (it must define
// the entry points codegen/cpu_emit.h describes); tests use it to show that a wrong
// library fails the check.
RunReport run_source_on_cpu(const Program& program, const std::string& source,
                            std::uint64_t seed, const CpuRunOptions& options = {});

}  // namespace polyfuse::cpu_runtime
