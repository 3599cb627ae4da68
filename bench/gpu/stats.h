// Statistics of speedups over the problem sizes of one idiom: geometric mean, minimum,
// maximum and the share of sizes where polyfuse is at least as fast (speedup >= 1.0).
#pragma once

#include <vector>

namespace polyfuse::bench {

// Statistics of a list of speedups (baseline time / polyfuse time).
struct SpeedupStats {
  int count = 0;           // sizes with a speedup (both times measured)
  double geomean = 0;      // exp(mean(log s)); 0 when count == 0
  double min = 0;
  double max = 0;
  double share_at_least_one = 0;  // fraction (0..1) of sizes with s >= 1.0
};

// The statistics of `speedups`; non-positive or non-finite entries are ignored (an
// unmeasured time is never a speedup).
SpeedupStats speedup_stats(const std::vector<double>& speedups);

// The median of `values` (the mean of the two middle values for an even count); 0 when
// empty. Used for the median of timed launches.
double median(std::vector<double> values);

}  // namespace polyfuse::bench
