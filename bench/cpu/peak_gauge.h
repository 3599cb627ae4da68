// The FMA peak one run of polyfuse-bench-cpu compares its kernels with.
//
// Why a fraction above 1 was once printed (`peak_fraction=1.14`): the peak loop ran for
// 0.1 s rounds timed by the wall clock on a machine whose two cores were shared with
// builds, so the rounds lost the time slices the scheduler gave to other processes while a
// kernel measured later ran unhindered. The loop now counts the CPU time of its own threads
// (fma_peak.h), which a preemption does not inflate. As a second line, the invariant is
// structural here: the peak is the best of all its measurements AND of every rate a kernel
// was measured at (a kernel that ran at R GFLOP/s proves the peak is at least R); a kernel
// faster than the gauge first makes it measure again, and when it is still faster the peak
// is raised to the kernel's rate and a warning says the gauge read low. So every fraction is
// in [0, 1], whatever the measurements do.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace polyfuse::bench {

class PeakGauge {
 public:
  // `measure` returns one measurement of the peak in GFLOP/s (fma_peak_gflops); it runs
  // once here and at most `retries` more times for each kernel faster than the peak.
  // `label` names the gauge in warnings ("1 thread").
  explicit PeakGauge(std::function<double()> measure, std::string label = "", int retries = 3);

  // The peak so far: the best measurement, or a faster kernel's rate.
  double gflops() const { return best_; }

  // kernel_gflops / the peak, in [0, 1] (0 while both are 0). A kernel faster than the
  // peak re-measures it, and if still faster becomes the peak (warnings() says so).
  double fraction(double kernel_gflops);

  // One line for each time a kernel outran every measurement of the gauge.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  std::function<double()> measure_;
  std::string label_;
  int retries_;
  double best_ = 0;
  std::vector<std::string> warnings_;
};

// "93.1%".
std::string percent_text(double fraction);

}  // namespace polyfuse::bench
