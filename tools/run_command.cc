// `polyfuse run`: compiles a .tc file, runs it once on random inputs (GPU if present, else
// the emulator), checks it against the exact reference (each element within its derived
// error bound: runtime/reference/compare.h) and prints `check: ok (...)`.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "frontend/diagnostics.h"
#include "frontend/frontend.h"
#include "polyfuse/device.h"
#include "runtime/api/run_program.h"
#include "runtime/cpu/run_on_cpu.h"
#include "tools/cli_spelling.h"
#include "tools/command.h"
#include "tools/gpu_flags.h"

namespace polyfuse::tools {
namespace {

struct RunOptions {
  GpuFlags gpu;
  std::string target = "gpu";
  std::string input;
  std::vector<std::string> defines;
  std::string def;
  std::string backend = "auto";
  std::uint64_t seed = 1;
  int repeat = 20;
  bool stats = false;
  std::string kernel_source;  // --kernel-source FILE.cu
};

Backend chosen_backend(const std::string& name) {
  if (name == "emu") return Backend::emu;
  if (name == "cuda") {
    if (!cuda_device_available()) throw UserError("--backend=cuda: no CUDA device: " + cuda_device_description());
    return Backend::cuda;
  }
  return cuda_device_available() ? Backend::cuda : Backend::emu;
}

int run_run(const RunOptions& options) {
  SizeBindings sizes;
  for (const std::string& define : options.defines) add_size_binding(sizes, define);
  SourceFile source = read_source_file(options.input);
  bool cpu = options.target == "cpu";
  RunRequest request;
  if (!cpu) {
    request.options = gpu_options(options.gpu);
    request.backend = chosen_backend(options.backend);
  }
  request.seed = options.seed;
  request.repeats = options.repeat;
  if (!options.kernel_source.empty()) {
    if (cpu) throw UserError("--kernel-source runs an edited CUDA kernel: it needs --target=gpu");
    request.kernel_source = read_source_file(options.kernel_source).text;
    request.kernel_source_name = options.kernel_source;
  }
  try {
    FrontendResult result = compile_source(source, sizes);
    std::cerr << render_diagnostics(result.warnings, source.text, cli_spelling);
    bool all_ok = true, found = false;
    for (const Program& program : result.programs) {
      if (!options.def.empty() && program.name != options.def) continue;
      found = true;
      if (cpu) {
        cpu_runtime::RunReport report = cpu_runtime::run_on_cpu(program, options.seed);
        std::cout << fmt::format("run: {} on cpu\n{}\n", program.name, report.to_string());
        all_ok = all_ok && report.check.ok;
        continue;
      }
      RunReport report = run_program(program, request);
      std::cout << fmt::format("run: {} on {}\n", program.name, to_string(request.backend));
      std::cout << report.check.to_string() << "\n";
      if (request.backend == Backend::cuda)
        std::cout << fmt::format("time: {:.4f} ms (median of {} launches), {:.2f} TFLOP/s\n", report.median_ms,
                                 request.repeats, report.tflops);
      if (options.stats && !report.stats.empty()) std::cout << report.stats;
      all_ok = all_ok && report.check.ok;
    }
    if (!found) throw UserError(fmt::format("--def {}: {} has no def of that name", options.def, source.name));
    return all_ok ? exit_success : exit_user_error;
  } catch (const UserError& error) {
    std::cerr << render_diagnostics(error.diagnostics(), source.text, cli_spelling);
    return exit_user_error;
  }
}

}  // namespace

Command add_run_command(CLI::App& parent) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* app = parent.add_subcommand(
      "run", "Compile a .tc file, run it once on random inputs (GPU if present, else the emulator) and check it "
             "against the exact (f64) reference within derived error bounds; prints 'check: ok (...)' or "
             "'check: FAILED (...)' and exits 0 or 1.");
  app->add_option("file", options->input, "The .tc source file")->required();
  app->add_option("-D,--define", options->defines, "Bind a size: -D NAME=VALUE (every size must be bound)")
      ->allow_extra_args(false)
      ->type_name("NAME=VALUE");
  app->add_option("--def", options->def, "Run only the def with this name (default: every def)");
  app->add_option("--target", options->target, "gpu (the CUDA kernel: --backend) or cpu (BRGEMM-based C++)")
      ->check(CLI::IsMember({"gpu", "cpu"}))
      ->capture_default_str();
  app->add_option("--backend", options->backend, "auto (GPU if present, else the emulator), cuda or emu")
      ->check(CLI::IsMember({"auto", "cuda", "emu"}))
      ->capture_default_str();
  app->add_option("--seed", options->seed, "Seed of the random inputs")->capture_default_str();
  app->add_option("--repeat", options->repeat, "Timed launches on a GPU (the median is printed)")->capture_default_str();
  app->add_flag("--stats", options->stats,
                "Emulator: print 'stats: global_bytes_loaded=N global_bytes_stored=N shared_bank_conflicts=N', "
                "then more counters");
  app->add_option("--kernel-source", options->kernel_source,
                  "Run this .cu (an edited copy of what 'compile --emit=cuda -o' wrote for the same -D and tile "
                  "options) in place of the generated kernel: same launch, inputs, reference check and emulator checks")
      ->type_name("FILE.cu");
  add_gpu_flags(app, options->gpu);
  return Command{app, [options] { return run_run(*options); }};
}

}  // namespace polyfuse::tools
