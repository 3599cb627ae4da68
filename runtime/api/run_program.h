// Running one program's generated kernel on random inputs and checking it against the
// exact reference (runtime/reference/compare.h): what `polyfuse run` does (and tests and benchmarks reuse). The
// kernel goes through the runtime API (NVRTC + cache on a GPU, or the emulator).
#pragma once

#include <cstdint>
#include <string>

#include "frontend/program.h"
#include "polyfuse/options.h"
#include "runtime/reference/compare.h"
#include "runtime/reference/tensor_data.h"
#include "schedule/gpu_options.h"

namespace polyfuse {

// What to run and how.
struct RunRequest {
  GpuOptions options;
  Backend backend = Backend::emu;
  std::uint64_t seed = 1;
  int repeats = 20;          // timed launches on a GPU (median reported)
  // When not empty: a .cu text to run in place of the generated kernel (an edited copy of
  // what `polyfuse compile --emit=cuda` wrote for the same program and options), with the
  // generated kernel's launch configuration, inputs and reference check.
  std::string kernel_source;
  std::string kernel_source_name;  // for messages (a file name)
  // When set, the kernel is generated from this def instead (the same program with sizes
  // left unbound) and the program's sizes are passed at launch: one build, every shape.
  const Program* kernel_program = nullptr;
  // false: no reference evaluation (too slow for large sizes); report.check then compares
  // nothing and the caller checks report.outputs itself.
  bool evaluate_reference = true;
};

// What happened.
struct RunReport {
  reference::CheckReport check;
  std::string stats;         // emulator: the `stats: ...` line, then details; empty on a GPU
  double median_ms = 0;      // GPU: median time of one launch (host timer around launch + sync)
  double tflops = 0;         // GPU: 2 * (multiply-adds of every matmul) / median time
  std::int64_t flops = 0;    // the program's floating-point operations (matmuls only)
  reference::TensorData outputs;  // every tensor after the run: the kernel's outputs, decoded
};

// Compiles `program` (every size bound, else UserError naming the unbound ones), runs it
// once on the emulator or `repeats` + 1 times on the GPU, and checks the outputs against
// the exact reference (reference::check_outputs).
// A request.kernel_source that was generated with other sizes or options (its "// Launch:"
// line differs) or that lacks the kernel is a UserError naming the difference.
RunReport run_program(const Program& program, const RunRequest& request);

}  // namespace polyfuse
