// What one run of polyfuse-bench-cpu measured, as rows: one per problem x implementation x
// thread count, for the CSV (`--csv FILE`) and the peak fractions. Reusable by every
// section: a section times its implementations side by side (measure.h: median_seconds)
// and hands the medians to add_problem.
//
// CSV columns, in order:
//   cpu, date, isa, pinning, section, problem, dtype, M, N, K, batch, threads,
//   implementation, median_ms, gflops, peak_fraction, ratio, check
// (fields quoted as RFC 4180 asks: bench/gpu/csv.h's csv_escape)
// median_ms: the median time of one call (6 significant digits); gflops: the problem's
// FLOP count (2 M N K batch) over it; peak_fraction: gflops over the FMA peak at the
// row's thread count, the peak as it stands at the end of the run (peak_gauge.h: never
// above 1); ratio: the implementation's median time over polyfuse's (> 1: polyfuse is
// faster; 1 on polyfuse's own row); check: "ok", or what differed.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "peak_gauge.h"

namespace polyfuse::bench {

struct Row {
  std::string section;  // "brgemm", "tensor_op", "gemm", "bias_relu", "batched_gemm", ...
  std::string problem;  // "1024x1024x1024", "32x32x32 batch 8", ...
  std::string dtype = "f32";
  int64_t m = 0, n = 0, k = 0, batch = 1;
  int threads = 1;
  std::string implementation;  // "polyfuse", "openblas", "libxsmm", "onednn", ...
  double median_seconds = 0;
  double gflops = 0;
  double peak_fraction = 0;  // set by Report::settle_peak_fractions
  double ratio = 0;
  std::string check = "ok";
};

// The run's environment, repeated on every CSV line.
struct RunInfo {
  std::string cpu, date, isa, pinning;
};

class Report {
 public:
  // Records one problem whose implementations `names` (polyfuse first) were measured
  // side by side at `problem.threads` threads: seconds[i] is names[i]'s median. `flops`
  // is the problem's FLOP count. Returns the rows' GFLOP/s, in the order of `names`.
  std::vector<double> add_problem(const Row& problem, const std::vector<std::string>& names,
                                  const std::vector<double>& seconds, double flops);

  // Sets every row's peak_fraction against `peak(threads)`, after every rate has been
  // shown to its gauge (so all fractions are against the final peak; a rate above a
  // gauge raises it). Rows whose thread count has no gauge keep 0.
  void settle_peak_fractions(const std::function<PeakGauge*(int threads)>& peak);

  const std::vector<Row>& rows() const { return rows_; }

  // The CSV text: header and one line per row.
  std::string csv(const RunInfo& info) const;

 private:
  std::vector<Row> rows_;
};

// Geometric mean (0 for none).
double geomean(const std::vector<double>& values);

}  // namespace polyfuse::bench
