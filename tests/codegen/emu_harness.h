// Runs a program's generated CUDA kernel on the emulator through the driver
// (runtime/api/run_program.h) with random inputs and checks it against the exact reference
// (runtime/reference: check_outputs). Every size must be bound. Each run takes the test's
// next thread schedule (tests/support/emu_schedules.h) unless one is given.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "codegen/cuda_emitter.h"
#include "frontend/program.h"
#include "polyfuse/launch_stats.h"
#include "polyfuse_emu/emulator.h"
#include "runtime/reference/compare.h"
#include "schedule/gpu_options.h"

namespace polyfuse::testing {

struct EmuRun {
  reference::CheckReport check;
  LaunchStats stats;               // the emulator's counters
  reference::TensorData outputs;   // every input and output after the run, decoded
};

// The bytes a run loaded from / stored to `tensor`'s buffer (0 when the kernels never touched it).
std::uint64_t bytes_loaded(const EmuRun& run, const std::string& tensor);
std::uint64_t bytes_stored(const EmuRun& run, const std::string& tensor);

// Edits the generated CUDA text before it is built (a hand-edited kernel).
using SourceEdit = std::function<std::string(const std::string&)>;

// The edit that replaces every `from` in the kernel text by `to` (a planted bug); a test failure
// when the text has none (a planted bug that misses its target would fail the run for nothing).
SourceEdit replacing(const std::string& from, const std::string& to);

struct EmuRunOptions {
  std::uint64_t seed = 1;                  // of the random inputs
  const Program* kernel_program = nullptr; // see run_on_emulator
  // With kernel_program: its emitted kernel, shared by the runs of one sweep (one per
  // kernel_program and options; RunRequest::kernel_program_emitted).
  std::shared_ptr<EmittedKernel> kernel_emitted;
  SourceEdit edit;                         // applied to the kernel's CUDA text
  std::optional<emu::Schedule> schedule;   // default: next_emu_schedule() (tests/support)
};

// The emulated GPU's SMs (emu::options().sm_count) for its lifetime: a persistent kernel launches
// min(SMs, tiles) blocks, so few SMs make each block walk several tiles.
class EmulatedSms {
 public:
  explicit EmulatedSms(unsigned sms) : saved_(emu::options().sm_count) { emu::options().sm_count = sms; }
  ~EmulatedSms() { emu::options().sm_count = saved_; }
  EmulatedSms(const EmulatedSms&) = delete;
  EmulatedSms& operator=(const EmulatedSms&) = delete;

 private:
  unsigned saved_;
};

// Emits, builds (cached), runs and checks. With `kernel_program` (the same def with sizes
// left unbound) the kernel is generated from it and gets `program`'s sizes as arguments,
// so one build serves every shape. Emulator errors are thrown as polyfuse::EmulatorError.
EmuRun run_on_emulator(const Program& program, const GpuOptions& options, const EmuRunOptions& run);
EmuRun run_on_emulator(const Program& program, const GpuOptions& options, std::uint64_t seed = 1,
                       const Program* kernel_program = nullptr);

// A sweep's runs of one kernel_program with the same options: the kernel is emitted by the
// first run and reused by the next (emitting it is most of a small shape's run). A program
// with every size bound may be its own kernel_program (runs under several schedules or edits).
struct KernelSweep {
  const Program& kernel_program;
  std::shared_ptr<EmittedKernel> emitted = std::make_shared<EmittedKernel>();
  EmuRun run(const Program& program, const GpuOptions& options, EmuRunOptions how = {}) const;
};

}  // namespace polyfuse::testing
