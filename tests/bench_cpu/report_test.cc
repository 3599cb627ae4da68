// Report (bench/cpu/report.h): rows of interleaved medians, their ratios and GFLOP/s, the
// CSV, and the accounting: no peak fraction above 1 reaches the CSV even when a kernel's
// rate is above what the peak gauge measured.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "report.h"

namespace polyfuse::bench {
namespace {

Row problem(const std::string& section, int threads) {
  Row row;
  row.section = section, row.problem = "256x256x256", row.m = row.n = row.k = 256, row.threads = threads;
  return row;
}

// The CSV's lines split into fields (no quoted fields in these tests).
std::vector<std::vector<std::string>> parse(const std::string& csv) {
  std::vector<std::vector<std::string>> lines;
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::istringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) fields.push_back(cell);
    lines.push_back(fields);
  }
  return lines;
}

TEST(Report, RowsCarryRatesAndRatiosAgainstPolyfuse) {
  Report report;
  const double flops = 2.0 * 256 * 256 * 256;
  const std::vector<double> g = report.add_problem(problem("gemm", 1), {"polyfuse", "openblas"}, {0.001, 0.002}, flops);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_DOUBLE_EQ(g[0], flops / 0.001 * 1e-9);
  ASSERT_EQ(report.rows().size(), 2u);
  EXPECT_EQ(report.rows()[0].ratio, 1.0);
  EXPECT_EQ(report.rows()[1].ratio, 2.0) << "openblas took twice as long: polyfuse is 2x faster";
  EXPECT_EQ(report.rows()[1].implementation, "openblas");
}

// The accounting test of issue 26 item 5: a rate above every measurement of the gauge
// (scripted low) must not give a fraction above 1 anywhere, and the CSV says <= 1.
TEST(Report, NoPeakFractionAboveOneReachesTheCsv) {
  Report report;
  const double flops = 2.0 * 256 * 256 * 256;  // 0.0335 GFLOP
  // 1 thread: 33.6 and 67.1 GFLOP/s; 2 threads: 134 GFLOP/s; the gauges read 40 and 80.
  report.add_problem(problem("gemm", 1), {"polyfuse", "openblas"}, {0.001, 0.0005}, flops);
  report.add_problem(problem("gemm", 2), {"polyfuse"}, {0.00025}, flops);
  report.add_problem(problem("gemm", 3), {"polyfuse"}, {0.001}, flops);  // no gauge at 3 threads
  PeakGauge one([] { return 40.0; }, "1 thread"), two([] { return 80.0; }, "2 threads");
  report.settle_peak_fractions([&](int t) { return t == 1 ? &one : t == 2 ? &two : nullptr; });
  for (const Row& r : report.rows()) {
    EXPECT_GE(r.peak_fraction, 0.0) << r.implementation;
    EXPECT_LE(r.peak_fraction, 1.0) << r.implementation << " at " << r.threads << " threads";
  }
  EXPECT_DOUBLE_EQ(one.gflops(), flops / 0.0005 * 1e-9) << "the fastest rate at 1 thread is the peak";
  EXPECT_DOUBLE_EQ(report.rows()[0].peak_fraction, 0.5) << "against the final peak, not the gauge's 40";
  EXPECT_EQ(one.warnings().size(), 1u);
  EXPECT_EQ(two.warnings().size(), 1u);
  EXPECT_EQ(report.rows()[3].peak_fraction, 0.0) << "no gauge, no fraction";

  const auto lines = parse(report.csv(RunInfo{"test cpu", "2026-11-24T00:00:00Z", "avx2", "none"}));
  ASSERT_EQ(lines.size(), 5u);
  const std::vector<std::string>& header = lines[0];
  ASSERT_EQ(header.size(), 18u);
  EXPECT_EQ(header[12], "implementation");
  EXPECT_EQ(header[15], "peak_fraction");
  for (std::size_t i = 1; i < lines.size(); ++i) {
    ASSERT_EQ(lines[i].size(), header.size()) << i;
    EXPECT_LE(std::stod(lines[i][15]), 1.0) << "line " << i;
  }
  EXPECT_EQ(lines[2][12], "openblas");
  EXPECT_EQ(lines[2][13], "0.5") << "median_ms";
  EXPECT_EQ(lines[2][16], "0.5") << "ratio: openblas took half polyfuse's time";
}

TEST(Report, CsvFieldsWithCommasAreQuoted) {
  Report report;
  report.add_problem(problem("gemm", 1), {"polyfuse"}, {0.001}, 1e6);
  const std::string csv = report.csv(RunInfo{"AMD EPYC, 2 cores", "d", "avx2", "none"});
  EXPECT_NE(csv.find("\n\"AMD EPYC, 2 cores\",d,avx2,none,gemm,"), std::string::npos) << csv;
}

TEST(Report, Geomean) {
  EXPECT_DOUBLE_EQ(geomean({2.0, 8.0}), 4.0);
  EXPECT_EQ(geomean({}), 0.0);
}

}  // namespace
}  // namespace polyfuse::bench
