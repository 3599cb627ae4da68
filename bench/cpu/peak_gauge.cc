#include "peak_gauge.h"

#include <algorithm>
#include <cstdio>

namespace polyfuse::bench {

PeakGauge::PeakGauge(std::function<double()> measure, int retries)
    : measure_(std::move(measure)), retries_(retries), best_(measure_()) {}

std::optional<double> PeakGauge::fraction(double kernel_gflops) {
  for (int retry = 0; kernel_gflops > best_ && retry < retries_; ++retry) best_ = std::max(best_, measure_());
  if (kernel_gflops > best_ || best_ <= 0) return std::nullopt;
  return kernel_gflops / best_;
}

std::string percent_text(std::optional<double> fraction) {
  if (!fraction) return "n/a";
  char text[16];
  std::snprintf(text, sizeof text, "%.1f%%", 100 * *fraction);
  return text;
}

}  // namespace polyfuse::bench
