#include "bench/gpu/stats.h"

#include <algorithm>
#include <cmath>

namespace polyfuse::bench {

SpeedupStats speedup_stats(const std::vector<double>& speedups) {
  SpeedupStats stats;
  double log_sum = 0;
  int at_least_one = 0;
  for (double s : speedups) {
    if (!(s > 0) || !std::isfinite(s)) continue;
    if (stats.count == 0) {
      stats.min = stats.max = s;
    } else {
      stats.min = std::min(stats.min, s);
      stats.max = std::max(stats.max, s);
    }
    ++stats.count;
    log_sum += std::log(s);
    if (s >= 1.0) ++at_least_one;
  }
  if (stats.count > 0) {
    stats.geomean = std::exp(log_sum / stats.count);
    stats.share_at_least_one = static_cast<double>(at_least_one) / stats.count;
  }
  return stats;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

}  // namespace polyfuse::bench
