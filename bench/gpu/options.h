// The command line of polyfuse-bench (see --help), parsed into BenchOptions. Parsing
// never exits the process: errors come back as a message and an exit code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/gpu/conv_idioms.h"
#include "bench/gpu/idioms.h"
#include "bench/gpu/sizes.h"

namespace polyfuse::bench {

// Exit codes of polyfuse-bench.
inline constexpr int exit_ok = 0;
inline constexpr int exit_check_failed = 1;  // a variant's output failed its correctness check
inline constexpr int exit_usage = 2;         // bad arguments
inline constexpr int exit_no_device = 3;     // no CUDA device (and not --dry-run / --compile-only)
inline constexpr int exit_error = 4;         // a CUDA, library or compiler error

// Everything the command line chooses.
struct BenchOptions {
  bool dry_run = false;       // list what would run; run and write nothing
  bool compile_only = false;  // compile every polyfuse and extra kernel with NVRTC; no GPU needed
  bool quick = false;         // 20 sizes instead of 100
  std::vector<ProblemSize> sizes;  // the sizes to run (from --size, else the protocol's)
  bool explicit_sizes = false;     // --size was given
  std::uint64_t seed = default_size_seed;
  std::int64_t batch = 8;     // batch count of batched idioms
  std::vector<const Idiom*> idioms;  // default: all (none with --conv unless named)
  std::vector<const ConvIdiom*> conv_idioms;  // --conv: all; else those named with --idiom
  std::vector<ConvShape> conv_layers;         // conv_layers(quick, conv_batch) when there are conv idioms
  std::int64_t conv_batch = 32;               // images per convolution layer (ResNet-50's layers)
  std::vector<DType> dtypes;         // default: f16 and bf16
  bool tune = true;           // false (--no-tune): polyfuse_best is the default configuration alone
  bool autotune = false;      // --autotune: also time the autotuner's winner (polyfuse_autotuned)
  int repeats = 20;           // timed launches per variant
  int warmup = 5;             // untimed launches before them
  bool l2_flush = true;       // flush L2 before every launch
  double spin_ms = 10;        // spin kernel queued before the timed launches
  int samples = 1024;         // output elements checked against the host reference
  std::string arch;           // NVRTC target ("": the GPU's, else sm_90)
  std::string csv = "polyfuse-bench.csv";
  std::string summary = "polyfuse-bench-summary.txt";
  int compile_jobs = 0;       // threads compiling polyfuse kernels (0: hardware threads)
  double time_limit_s = 0;    // > 0: start no new problem after this many seconds (the rest is not run)
  std::string command;        // the command line, as run
};

// The outcome of parsing: options, or an exit code and the text to print (help on
// stdout with exit_ok, an error on stderr with exit_usage).
struct ParseOutcome {
  std::optional<BenchOptions> options;
  int exit_code = exit_ok;
  std::string message;
};

// Parses `argv` (argv[0] is the program name).
ParseOutcome parse_options(int argc, const char* const* argv);

}  // namespace polyfuse::bench
