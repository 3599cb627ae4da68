// Speedup statistics on synthetic timings: geomean, min, max, share >= 1.0, median.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "bench/gpu/stats.h"

namespace polyfuse::bench {
namespace {

TEST(BenchStats, GeomeanMinMaxShare) {
  const SpeedupStats stats = speedup_stats({0.5, 2.0, 1.0, 4.0});
  EXPECT_EQ(stats.count, 4);
  EXPECT_NEAR(stats.geomean, std::pow(0.5 * 2.0 * 1.0 * 4.0, 0.25), 1e-12);
  EXPECT_DOUBLE_EQ(stats.min, 0.5);
  EXPECT_DOUBLE_EQ(stats.max, 4.0);
  EXPECT_DOUBLE_EQ(stats.share_at_least_one, 0.75);  // exactly 1.0 counts
}

TEST(BenchStats, GeomeanOfReciprocalsIsOne) {
  const SpeedupStats stats = speedup_stats({0.8, 1.25, 0.5, 2.0});
  EXPECT_NEAR(stats.geomean, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(stats.share_at_least_one, 0.5);
}

TEST(BenchStats, IgnoresUnmeasuredValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const SpeedupStats stats = speedup_stats({nan, 0.0, -1.0, inf, 1.5});
  EXPECT_EQ(stats.count, 1);
  EXPECT_DOUBLE_EQ(stats.geomean, 1.5);
  EXPECT_DOUBLE_EQ(stats.min, 1.5);
  EXPECT_DOUBLE_EQ(stats.max, 1.5);
  EXPECT_DOUBLE_EQ(stats.share_at_least_one, 1.0);
}

TEST(BenchStats, EmptyIsZero) {
  const SpeedupStats stats = speedup_stats({});
  EXPECT_EQ(stats.count, 0);
  EXPECT_EQ(stats.geomean, 0);
  EXPECT_EQ(stats.share_at_least_one, 0);
}

TEST(BenchStats, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({7}), 7);
  EXPECT_DOUBLE_EQ(median({}), 0);
  // One slow outlier (a launch delayed by something else) does not move the median.
  std::vector<double> times(20, 1.0);
  times[5] = 100.0;
  EXPECT_DOUBLE_EQ(median(times), 1.0);
}

}  // namespace
}  // namespace polyfuse::bench
