// The two modes of polyfuse-bench that do work: a full run on a GPU (every problem of
// plan.h: compile polyfuse's kernels, check every variant, time it, write a CSV row; the
// summary at the end; the next size's kernels compile on worker threads while the
// current size is measured, which only competes with the host side of the run), and --compile-only (every polyfuse kernel and the extra kernels
// compiled with NVRTC, nothing launched, no GPU needed).
#pragma once

#include <string>

#include "bench/gpu/options.h"
#include "bench/gpu/plan.h"

namespace polyfuse::bench {

// Runs the benchmark; a CUDA device must be present (main checks). Writes options.csv row
// by row and options.summary at the end (also printed). Returns exit_ok, exit_check_failed
// (a variant failed its check: it was not timed) or exit_error (the run stopped early;
// what was measured is kept).
int run_benchmark(const BenchOptions& options, const BuildFeatures& features, const std::string& arch);

// Compiles every polyfuse kernel of the plan (each fitting tile configuration) and the
// extra kernels for `arch`; prints one line per kernel. Returns exit_ok unless a default
// configuration or the extra kernels failed to compile (exit_error).
int compile_only(const BenchOptions& options, const std::string& arch);

}  // namespace polyfuse::bench
