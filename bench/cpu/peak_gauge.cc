#include "peak_gauge.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace polyfuse::bench {

PeakGauge::PeakGauge(std::function<double()> measure, std::string label, int retries)
    : measure_(std::move(measure)), label_(std::move(label)), retries_(retries), best_(std::max(0.0, measure_())) {}

double PeakGauge::fraction(double kernel_gflops) {
  if (!std::isfinite(kernel_gflops) || kernel_gflops < 0) kernel_gflops = 0;  // no rate: nothing to compare
  for (int retry = 0; kernel_gflops > best_ && retry < retries_; ++retry) best_ = std::max(best_, measure_());
  if (kernel_gflops > best_) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "the FMA peak gauge%s%s read %.1f GFLOP/s (best of %d measurements) but a kernel ran at %.1f: "
                  "the gauge read low (a loaded machine?); the peak is %.1f from here on",
                  label_.empty() ? "" : " at ", label_.c_str(), best_, retries_ + 1, kernel_gflops, kernel_gflops);
    warnings_.emplace_back(text);
    best_ = kernel_gflops;
  }
  return best_ > 0 ? kernel_gflops / best_ : 0.0;
}

std::string percent_text(double fraction) {
  char text[16];
  std::snprintf(text, sizeof text, "%.1f%%", 100 * fraction);
  return text;
}

}  // namespace polyfuse::bench
