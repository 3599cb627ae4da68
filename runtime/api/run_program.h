// The run/check half of the driver (its compile half is runtime/api/generate.h): a
// program's kernel — the generated CUDA kernel on a GPU or on the emulator, or the CPU
// target's C++ — run on random inputs and checked against the exact reference
// (runtime/reference/compare.h). `polyfuse run`, the test harnesses and the benchmarks'
// correctness checks all come through here; the GPU kernels go through the public API
// (NVRTC + cache, or the emulator build), the CPU code through runtime/cpu.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "frontend/program.h"
#include "polyfuse/launch_stats.h"
#include "polyfuse/options.h"
#include "runtime/cpu/cpu_module.h"
#include "runtime/reference/compare.h"
#include "runtime/reference/tensor_data.h"
#include "schedule/cpu_plan.h"
#include "schedule/gpu_options.h"
#include "schedule/gpu_pipeline.h"

namespace polyfuse {

struct EmittedKernel;  // codegen/cuda_emitter.h

// What code a program becomes.
enum class Target {
  gpu,  // a CUDA kernel on tensor cores (run on a GPU or on the emulator: RunRequest::backend)
  cpu,  // C++ over kernels/cpu's BRGEMM and pointwise primitives
};

// "gpu" or "cpu".
const char* to_string(Target target);

// What to run and how.
struct RunRequest {
  Target target = Target::gpu;
  GpuOptions options;              // gpu: the tile options
  Backend backend = Backend::emu;  // gpu: cuda (a GPU) or emu (the emulator)
  CpuScheduleOptions cpu_schedule{.target = detect_cpu_target(), .blocking = {}};  // cpu
  cpu_runtime::CpuBuildOptions cpu_build;                                          // cpu
  std::uint64_t seed = 1;          // of the random inputs
  reference::ValueRanges input_ranges;  // tensors drawn from another interval than [-1, 1)
  int repeats = 20;                // timed runs after the checked one (GPU and CPU; 0: none);
                                   // the emulator runs once, untimed
  // When not empty: the source to run in place of the generated one — an edited copy of
  // what `polyfuse compile --emit=cuda` (gpu) or `--emit=cpu` (cpu) wrote for the same
  // program and options — with the same launch, inputs and check.
  std::string kernel_source;
  std::string kernel_source_name;  // for messages (a file name)
  // Applied to the generated (or given) source before it is built (tests' hand edits).
  std::function<std::string(const std::string&)> edit_kernel_source;
  // gpu: the kernel is generated from this def instead (the same program with sizes left
  // unbound) and the program's sizes are passed at launch: one build, every shape.
  const Program* kernel_program = nullptr;
  // gpu, with kernel_program: its kernel as emitted for these options, kept by the caller
  // across the runs of a sweep over shapes (the first run fills it, the next ones build it
  // without emitting it again); one per (kernel_program, options). Null: emitted each run.
  std::shared_ptr<EmittedKernel> kernel_program_emitted;
  // false: no reference evaluation (too slow for large sizes); report.check then compares
  // nothing and the caller checks report.outputs itself.
  bool evaluate_reference = true;
  PassDumps dumps;                 // gpu: schedule trees after the passes (--dump-after)
};

// What happened.
struct RunReport {
  reference::CheckReport check;
  LaunchStats stats;               // the emulator's counters (none on a GPU or the CPU)
  double median_ms = 0;            // median of the timed runs (0 when none: the emulator)
  int timed_runs = 0;
  std::int64_t flops = 0;          // reference::reduction_flops
  reference::TensorData outputs;   // every tensor after the run: the outputs, decoded
  std::string library;             // cpu: the shared object that ran
  bool cached = false;             // no compiler ran (the kernel came from a cache)

  // FLOP/s of the median run (0 when untimed or without reductions).
  double flops_per_second() const { return median_ms > 0 ? flops / (median_ms * 1e-3) : 0; }
};

// Builds the code of `program` (every size bound, else UserError naming the unbound ones)
// for request.target, runs it once on random inputs and then request.repeats timed times
// (not on the emulator), and checks the outputs against the exact reference
// (reference::check_outputs). A request.kernel_source generated with other sizes or
// options (its "// Launch:" line differs) or lacking the kernel is a UserError naming the
// difference. Emulator errors are polyfuse::EmulatorError, build failures CompileError.
RunReport run_program(const Program& program, const RunRequest& request);

}  // namespace polyfuse
