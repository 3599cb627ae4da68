// polyfuse-bench: polyfuse's fused kernels against cuBLAS, cuBLAS + cuDNN and cuBLASLt
// (issue 7), and convolutions against cuDNN (--conv, issue 24). Parses the command line, then --dry-run (a listing), --compile-only (NVRTC
// only) or a run on the GPU; without a GPU a run stops before writing anything.
#include <iostream>

#include "bench/gpu/bench_run.h"
#include "bench/gpu/options.h"
#include "bench/gpu/plan.h"
#include "polyfuse/device.h"

#ifndef POLYFUSE_BENCH_HAVE_CUDNN
#define POLYFUSE_BENCH_HAVE_CUDNN 0
#endif
#ifndef POLYFUSE_BENCH_CUDNN_VERSION
#define POLYFUSE_BENCH_CUDNN_VERSION ""
#endif

int main(int argc, char** argv) {
  using namespace polyfuse::bench;
  const ParseOutcome parsed = parse_options(argc, argv);
  if (!parsed.options) {
    (parsed.exit_code == exit_ok ? std::cout : std::cerr) << parsed.message;
    return parsed.exit_code;
  }
  const BenchOptions& options = *parsed.options;
  const BuildFeatures features{POLYFUSE_BENCH_HAVE_CUDNN != 0, POLYFUSE_BENCH_CUDNN_VERSION};
  try {
    if (options.dry_run) {
      std::cout << dry_run_listing(options, features, polyfuse::cuda_device_description());
      return exit_ok;
    }
    const std::string arch =
        polyfuse::to_string(options.arch.empty() ? polyfuse::default_arch() : polyfuse::arch_from_string(options.arch));
    if (options.compile_only) return compile_only(options, arch);
    if (!polyfuse::cuda_device_available()) {
      std::cerr << "polyfuse-bench: error: " << polyfuse::cuda_device_description()
                << "\nnothing was run and nothing was written; --dry-run lists what a run would do\n";
      return exit_no_device;
    }
    return run_benchmark(options, features, arch);
  } catch (const std::exception& error) {
    std::cerr << "polyfuse-bench: error: " << error.what() << "\n";
    return exit_error;
  }
}
