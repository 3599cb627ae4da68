// PeakGauge (bench/cpu/peak_gauge.h): no fraction of the FMA peak above 1 can be reported,
// whatever the measurements of the peak do.
#include <gtest/gtest.h>

#include <vector>

#include "peak_gauge.h"

namespace polyfuse::bench {
namespace {

// A peak whose measurements come from `values` in turn (the last one repeating).
struct ScriptedPeak {
  std::vector<double> values;
  int calls = 0;
  double operator()() { return values[std::min<std::size_t>(calls++, values.size() - 1)]; }
};

TEST(PeakGauge, AKernelBelowThePeakIsItsFraction) {
  ScriptedPeak script{{100}};
  PeakGauge peak(std::ref(script));
  EXPECT_EQ(peak.fraction(93), 0.93);
  EXPECT_EQ(peak.fraction(100), 1.0);
  EXPECT_EQ(script.calls, 1) << "no re-measurement for kernels at or below the peak";
  EXPECT_EQ(percent_text(peak.fraction(93)), "93.0%");
}

// The first measurement came out low (a busy machine): a kernel above it makes the gauge
// measure again, and the better measurement is the peak from then on.
TEST(PeakGauge, AFasterKernelMeasuresThePeakAgain) {
  ScriptedPeak script{{80, 90, 120, 70}};
  PeakGauge peak(std::ref(script));
  EXPECT_EQ(peak.fraction(114), 0.95);
  EXPECT_EQ(script.calls, 3);
  EXPECT_EQ(peak.gflops(), 120);
  EXPECT_EQ(peak.fraction(60), 0.5) << "a later low measurement never lowers the peak";
}

// Still faster after every re-measurement: unknown, never a fraction above 1.
TEST(PeakGauge, NoFractionAboveOne) {
  ScriptedPeak script{{100, 101, 102, 103}};
  PeakGauge peak(std::ref(script), 3);
  EXPECT_EQ(peak.fraction(114), std::nullopt);
  EXPECT_EQ(script.calls, 4);
  EXPECT_EQ(percent_text(peak.fraction(114)), "n/a");
  for (double kernel : {0.0, 50.0, 103.0, 103.5, 1e9}) {
    const std::optional<double> fraction = peak.fraction(kernel);
    if (fraction) {
      EXPECT_LE(*fraction, 1.0) << kernel;
    }
  }
  ScriptedPeak broken{{0}};
  EXPECT_EQ(PeakGauge(std::ref(broken)).fraction(0), std::nullopt) << "no peak measured: nothing to divide by";
}

}  // namespace
}  // namespace polyfuse::bench
