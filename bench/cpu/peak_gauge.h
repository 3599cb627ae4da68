// The FMA peak one run of polyfuse-bench-cpu compares its kernels with.
//
// A single measurement of the peak can come out low: on a busy machine (another process or
// a neighbour on the core) the FMA loop loses cycles that a kernel measured a moment later
// does not, and a kernel then looks faster than the peak (an earlier version printed
// `peak_fraction=1.14`). So the peak is the best of all its measurements, it is measured
// again whenever a kernel looks faster than it, and a fraction above 1 is never reported:
// when a kernel still looks faster after the re-measurements, its fraction is unknown.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace polyfuse::bench {

class PeakGauge {
 public:
  // `measure` returns one measurement of the peak in GFLOP/s (fma_peak_gflops); it runs
  // once here and at most `retries` more times for each kernel faster than the best.
  explicit PeakGauge(std::function<double()> measure, int retries = 3);

  // The best measurement so far.
  double gflops() const { return best_; }

  // kernel_gflops / the peak, in [0, 1]; re-measures the peak while the kernel looks
  // faster. nullopt when it still does (the peak is not known well enough).
  std::optional<double> fraction(double kernel_gflops);

 private:
  std::function<double()> measure_;
  int retries_;
  double best_ = 0;
};

// "93.1%", or "n/a" for an unknown fraction.
std::string percent_text(std::optional<double> fraction);

}  // namespace polyfuse::bench
