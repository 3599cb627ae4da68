// `polyfuse run`: compiles a .tc file, runs each def once on random inputs (GPU if present,
// else the emulator; or the CPU target), checks it against the exact reference (each
// element within its derived error bound: runtime/reference/compare.h) through the driver
// (runtime/api/run_program.h) and prints `check: ok (...)`.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "polyfuse/device.h"
#include "polyfuse/errors.h"
#include "polyfuse_emu/emulator.h"
#include "runtime/api/run_program.h"
#include "runtime/reference/flops.h"
#include "tools/autotune_flag.h"
#include "tools/command.h"
#include "tools/cpu_flags.h"
#include "tools/gpu_flags.h"
#include "tools/program_input.h"

namespace polyfuse::tools {
namespace {

struct RunOptions {
  GpuFlags gpu;
  CpuFlags cpu;
  std::string target = "gpu";
  std::string input;
  std::vector<std::string> defines;
  std::string def;
  std::string backend = "auto";
  std::uint64_t seed = 1;
  std::vector<std::string> input_ranges;  // --input-range NAME=LOW:HIGH
  int repeat = 20;
  bool stats = false;
  std::string kernel_source;  // --kernel-source FILE
  unsigned sms = 0;           // --sms N: the emulated device's SMs (0: the default)
};

// --sms N for the run: the emulator's SM count (persistent kernels launch min(SMs, tiles) blocks).
class EmulatedSms {
 public:
  explicit EmulatedSms(unsigned sms) : saved_(emu::options().sm_count) {
    if (sms) emu::options().sm_count = sms;
  }
  ~EmulatedSms() { emu::options().sm_count = saved_; }
  EmulatedSms(const EmulatedSms&) = delete;
  EmulatedSms& operator=(const EmulatedSms&) = delete;

 private:
  unsigned saved_;
};

Backend chosen_backend(const std::string& name) {
  if (name == "emu") return Backend::emu;
  if (name == "cuda") {
    if (!cuda_device_available()) throw NoDeviceNeeded("--backend=cuda: " + cuda_device_description());
    return Backend::cuda;
  }
  return cuda_device_available() ? Backend::cuda : Backend::emu;
}

// The emulator runs at about 50 MFLOP/s of matmul work on one core (measured: 512^3 in ~6 s).
constexpr double emulator_flops_per_second = 5e7;

// Runs estimated to take longer than this many seconds are announced and show progress;
// POLYFUSE_EMU_NOTICE_SECONDS sets it (0: every run).
double notice_seconds() {
  const char* value = std::getenv("POLYFUSE_EMU_NOTICE_SECONDS");
  if (value == nullptr || *value == '\0') return 10;
  char* end = nullptr;
  const double seconds = std::strtod(value, &end);
  if (*end != '\0' || !(seconds >= 0))
    throw UserError(fmt::format("POLYFUSE_EMU_NOTICE_SECONDS={}: expected a number of seconds >= 0", value));
  return seconds;
}

// On a long emulator run: says so before it starts, then prints the blocks done every few
// seconds (stderr), until destroyed.
class EmulatorProgress {
 public:
  EmulatorProgress(const Program& program, bool emulated) {
    if (!emulated || !program.parameters.empty()) return;  // (the run refuses unbound sizes)
    const double seconds = static_cast<double>(reference::reduction_flops(program)) / emulator_flops_per_second;
    if (seconds < notice_seconds()) return;
    std::cerr << fmt::format("run: {} on the emulator will take about {:.0f} s (CPU emulation of every thread; "
                             "--backend=cuda on a GPU)\n",
                             program.name, seconds);
    emu::options().progress = [last = std::chrono::steady_clock::now()](std::uint64_t done, std::uint64_t blocks) mutable {
      const auto now = std::chrono::steady_clock::now();
      if (now - last < std::chrono::seconds(3) && done < blocks) return;
      last = now;
      std::cerr << fmt::format("emu: {} of {} blocks ({:.0f}%)\n", done, blocks, 100.0 * done / blocks);
    };
  }
  ~EmulatorProgress() { emu::options().progress = nullptr; }
  EmulatorProgress(const EmulatorProgress&) = delete;
  EmulatorProgress& operator=(const EmulatorProgress&) = delete;
};

// --input-range NAME=LOW:HIGH, each: the interval of NAME's random values.
reference::ValueRanges parse_input_ranges(const std::vector<std::string>& specs) {
  reference::ValueRanges ranges;
  for (const std::string& spec : specs) {
    const std::size_t equals = spec.find('='), colon = spec.find(':', equals == std::string::npos ? 0 : equals);
    reference::ValueRange range;
    char* end = nullptr;
    bool ok = equals != std::string::npos && equals > 0 && colon != std::string::npos;
    if (ok) {
      const std::string low = spec.substr(equals + 1, colon - equals - 1), high = spec.substr(colon + 1);
      range.low = std::strtod(low.c_str(), &end);
      ok = !low.empty() && *end == '\0';
      range.high = std::strtod(high.c_str(), &end);
      ok = ok && !high.empty() && *end == '\0';
    }
    if (!ok) throw UserError(fmt::format("--input-range {}: expected NAME=LOW:HIGH (e.g. P=0.01:1)", spec));
    if (!ranges.emplace(spec.substr(0, equals), range).second)
      throw UserError(fmt::format("--input-range {}: '{}' has a range already", spec, spec.substr(0, equals)));
  }
  return ranges;
}

// The ranges of `ranges` that name tensors of `program` (a file's other defs may have the rest);
// a name no def of the file has is refused before anything runs.
reference::ValueRanges ranges_for(const Program& program, const reference::ValueRanges& ranges) {
  reference::ValueRanges own;
  for (const auto& [name, range] : ranges)
    if (program.find_tensor(name) != nullptr) own.emplace(name, range);
  return own;
}

void print_report(const Program& program, const RunRequest& request, const RunReport& report, bool stats) {
  const std::string where = request.target == Target::cpu ? "cpu" : to_string(request.backend);
  std::cout << fmt::format("run: {} on {}\n{}\n", program.name, where, report.check.to_string());
  if (report.check.unchecked() > 0)
    std::cout << "note: the random inputs take some values outside a function's domain, or to overflow (those "
                 "without --input-range are uniform in [-1, 1)); to check those elements, give an input a range that "
                 "avoids it: --input-range NAME=LOW:HIGH\n";
  if (report.timed_runs > 0) {
    const double rate = report.flops_per_second();
    std::cout << fmt::format("time: {:.4f} ms (median of {} runs){}\n", report.median_ms, report.timed_runs,
                             rate <= 0       ? ""
                             : rate >= 1e12 ? fmt::format(", {:.2f} TFLOP/s", rate * 1e-12)
                                            : fmt::format(", {:.2f} GFLOP/s", rate * 1e-9));
  }
  if (stats) std::cout << report.stats.details();
}

int run_run(const RunOptions& options) {
  ProgramInput input(options.input, options.defines);
  RunRequest request;
  request.target = options.target == "cpu" ? Target::cpu : Target::gpu;
  request.seed = options.seed;
  request.repeats = options.repeat;
  try {
    if (request.target == Target::cpu) {
      refuse_gpu_flags(options.gpu, "--target=cpu has its own blocking");
      if (options.backend != "auto") throw UserError("--backend chooses where the GPU kernel runs; --target=cpu runs C++ on this CPU");
      if (options.stats) throw UserError("--stats prints the emulator's counters; --target=cpu runs no emulator");
      request.cpu_schedule = cpu_schedule_options(options.cpu);
      if (options.sms) throw UserError("--sms sets the emulated GPU's SM count; --target=cpu runs no emulator");
    } else {
      refuse_cpu_flags(options.cpu, "this runs the GPU kernel (add --target=cpu)");
      request.options = gpu_options(options.gpu);
      request.dumps = PassDumps{options.gpu.dump_after, &std::cerr};
      request.backend = chosen_backend(options.backend);
      if (options.stats && request.backend != Backend::emu)
        throw UserError("--stats prints the emulator's counters; this run is on a GPU (profile it with ncu, or run "
                        "with --backend=emu)");
      if (options.sms && request.backend != Backend::emu)
        throw UserError("--sms sets the emulated GPU's SM count; this run is on a GPU, whose own SM count the persistent "
                        "grid takes (run with --backend=emu)");
    }
    if (!options.kernel_source.empty()) {
      request.kernel_source = read_source_file(options.kernel_source).text;
      request.kernel_source_name = options.kernel_source;
    }
    EmulatedSms sms(options.sms);
    const reference::ValueRanges ranges = parse_input_ranges(options.input_ranges);
    const std::vector<const Program*> defs = input.defs(options.def);
    for (const auto& [name, range] : ranges) {
      bool named = false;
      for (const Program* program : defs) named = named || program->find_tensor(name) != nullptr;
      if (!named && defs.size() == 1) reference::random_tensors(*defs.front(), 0, {{name, range}});  // its error
      if (!named) throw UserError(fmt::format("--input-range {}=...: no def run here has a tensor '{}'", name, name));
    }
    bool all_ok = true;
    for (const Program* program : defs) {
      request.input_ranges = ranges_for(*program, ranges);
      if (options.gpu.autotune && request.target == Target::gpu)
        request.options = autotuned_gpu_options(options.gpu, input, *program, std::cout);
      EmulatorProgress progress(*program, request.target == Target::gpu && request.backend == Backend::emu);
      const RunReport report = run_program(*program, request);
      print_report(*program, request, report, options.stats);
      all_ok = all_ok && report.check.ok;
    }
    return all_ok ? exit_success : exit_check_failed;
  } catch (const UserError& error) {
    input.print(error);
    return exit_user_error;
  } catch (const CompileError& error) {
    // polyfuse's own code that its compiler rejects (with diagnostics: not a missing
    // compiler) is polyfuse's bug, not the input's: exit 4, as for an internal error.
    if (!options.kernel_source.empty() || error.log().find("error:") == std::string::npos) throw;
    std::cerr << "polyfuse: internal error: the generated code does not build (a bug in polyfuse):\n"
              << error.what() << "\n";
    return exit_internal_error;
  }
}

}  // namespace

Command add_run_command(CLI::App& parent) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* app = parent.add_subcommand(
      "run", "Compile a .tc file, run each def once on random inputs (GPU if present, else the emulator; or the CPU "
             "target) and check it against the exact (f64) reference within derived error bounds; prints "
             "'check: ok (...)' or 'check: FAILED (...)'.");
  app->footer(exit_codes_help);
  app->add_option("file", options->input, "The .tc source file")->required();
  app->add_option("-D,--define", options->defines, "Bind a size: -D NAME=VALUE (every size must be bound)")
      ->allow_extra_args(false)
      ->type_name("NAME=VALUE");
  app->add_option("--def", options->def, "Run only the def with this name (default: every def)");
  app->add_option("--target", options->target, "gpu (the CUDA kernel: --backend) or cpu (BRGEMM-based C++)")
      ->check(CLI::IsMember({"gpu", "cpu"}))
      ->capture_default_str();
  app->add_option("--backend", options->backend, "GPU target: auto (GPU if present, else the emulator), cuda or emu")
      ->check(CLI::IsMember({"auto", "cuda", "emu"}))
      ->capture_default_str();
  app->add_option("--seed", options->seed, "Seed of the random inputs")->capture_default_str();
  app->add_option("--input-range", options->input_ranges,
                  "The random values of a floating-point input (or output: its initial values) uniform in "
                  "[LOW, HIGH) instead of [-1, 1): for a program whose functions need it (log of a positive input); "
                  "repeatable")
      ->allow_extra_args(false)
      ->type_name("NAME=LOW:HIGH");
  app->add_option("--repeat", options->repeat,
                  "Timed runs after the checked one, on a GPU or the CPU target (the median is printed; the emulator "
                  "runs once, untimed)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app->add_flag("--stats", options->stats,
                "Emulator (--backend=emu): print every counter of the launch once ('stats: name=N ...') and the "
                "bytes of each tensor");
  app->add_option("--kernel-source", options->kernel_source,
                  "Run this file (an edited copy of what 'compile --emit=cuda -o' wrote for the same -D and tile "
                  "options, or of --emit=cpu with --target=cpu and the same --threads) in place of the generated code: "
                  "same launch, inputs, reference check and emulator checks; refused when made for another launch "
                  "or thread count")
      ->type_name("FILE");
  app->add_option("--sms", options->sms,
                  "Emulator (--backend=emu): the SMs of the emulated GPU, so that a persistent sm_90a kernel launches "
                  "min(SMs, tiles) blocks that each walk several tiles (default 132, an H100 SXM; on a GPU the "
                  "device's own count is used)")
      ->check(CLI::Range(1, 4096));
  add_gpu_flags(app, options->gpu);
  add_cpu_flags(app, options->cpu);
  return Command{app, [options] { return run_run(*options); }};
}

}  // namespace polyfuse::tools
