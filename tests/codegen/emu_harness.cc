#include "emu_harness.h"

#include <gtest/gtest.h>

#include "runtime/api/run_program.h"
#include "support/emu_schedules.h"

namespace polyfuse::testing {

std::uint64_t bytes_loaded(const EmuRun& run, const std::string& tensor) {
  const LaunchStats::Buffer* buffer = run.stats.buffer(tensor);
  return buffer == nullptr ? 0 : buffer->bytes_loaded;
}

std::uint64_t bytes_stored(const EmuRun& run, const std::string& tensor) {
  const LaunchStats::Buffer* buffer = run.stats.buffer(tensor);
  return buffer == nullptr ? 0 : buffer->bytes_stored;
}

SourceEdit replacing(const std::string& from, const std::string& to) {
  return [from, to](const std::string& cuda) {
    std::string edited = cuda;
    int count = 0;
    for (std::string::size_type at = edited.find(from); at != std::string::npos; at = edited.find(from, at + to.size())) {
      edited.replace(at, from.size(), to);
      ++count;
    }
    if (count == 0) ADD_FAILURE() << "the planted edit finds no `" << from << "` in the kernel";
    return edited;
  };
}

EmuRun run_on_emulator(const Program& program, const GpuOptions& options, std::uint64_t seed,
                       const Program* kernel_program) {
  EmuRunOptions run;
  run.seed = seed;
  run.kernel_program = kernel_program;
  return run_on_emulator(program, options, run);
}

EmuRun run_on_emulator(const Program& program, const GpuOptions& options, const EmuRunOptions& how) {
  RunRequest request;
  request.target = Target::gpu;
  request.backend = Backend::emu;
  request.options = options;
  request.seed = how.seed;
  request.kernel_program = how.kernel_program;
  request.kernel_program_emitted = how.kernel_emitted;
  request.edit_kernel_source = how.edit;
  emu::ScopedSchedule schedule(how.schedule ? *how.schedule : next_emu_schedule());
  RunReport report = run_program(program, request);
  return EmuRun{report.check, std::move(report.stats), std::move(report.outputs)};
}

EmuRun KernelSweep::run(const Program& program, const GpuOptions& options, EmuRunOptions how) const {
  how.kernel_program = &kernel_program;
  how.kernel_emitted = emitted;
  return run_on_emulator(program, options, how);
}

}  // namespace polyfuse::testing
