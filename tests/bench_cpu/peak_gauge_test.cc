// PeakGauge (bench/cpu/peak_gauge.h): no fraction of the FMA peak above 1 can be reported,
// whatever the measurements of the peak do.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
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
  EXPECT_TRUE(peak.warnings().empty());
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
  EXPECT_TRUE(peak.warnings().empty());
}

// Still faster after every re-measurement (the run that printed peak_fraction=1.14): the
// kernel's rate becomes the peak, a warning says the gauge read low, and the fraction is 1.
TEST(PeakGauge, AKernelFasterThanEveryMeasurementRaisesThePeak) {
  ScriptedPeak script{{100, 101, 102, 103}};
  PeakGauge peak(std::ref(script), "1 thread", 3);
  EXPECT_EQ(peak.fraction(114), 1.0);
  EXPECT_EQ(script.calls, 4);
  EXPECT_EQ(peak.gflops(), 114);
  ASSERT_EQ(peak.warnings().size(), 1u);
  EXPECT_NE(peak.warnings()[0].find("gauge at 1 thread read 103.0 GFLOP/s"), std::string::npos) << peak.warnings()[0];
  EXPECT_NE(peak.warnings()[0].find("kernel ran at 114.0"), std::string::npos) << peak.warnings()[0];
  EXPECT_EQ(percent_text(peak.fraction(114)), "100.0%");
}

// Whatever the gauge and the kernels give, every fraction is in [0, 1].
TEST(PeakGauge, NoFractionOutsideZeroToOne) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  for (double gauge : {0.0, 1.0, 100.0, -5.0, nan}) {
    ScriptedPeak script{{gauge}};
    PeakGauge peak(std::ref(script));
    for (double kernel : {0.0, 50.0, 103.0, 103.5, 1e9, -1.0, inf, nan, 2e9}) {
      const double fraction = peak.fraction(kernel);
      EXPECT_GE(fraction, 0.0) << gauge << " " << kernel;
      EXPECT_LE(fraction, 1.0) << gauge << " " << kernel;
    }
  }
}

}  // namespace
}  // namespace polyfuse::bench
