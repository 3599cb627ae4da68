#include "report.h"

#include <fmt/format.h>

#include <cmath>

#include "bench/gpu/csv.h"

namespace polyfuse::bench {

std::vector<double> Report::add_problem(const Row& problem, const std::vector<std::string>& names,
                                        const std::vector<double>& seconds, double flops) {
  std::vector<double> rates;
  for (std::size_t i = 0; i < names.size() && i < seconds.size(); ++i) {
    Row row = problem;
    row.implementation = names[i];
    row.median_seconds = seconds[i];
    row.gflops = seconds[i] > 0 ? flops / seconds[i] * 1e-9 : 0;
    row.ratio = seconds[0] > 0 ? seconds[i] / seconds[0] : 0;
    rates.push_back(row.gflops);
    rows_.push_back(row);
  }
  return rates;
}

void Report::settle_peak_fractions(const std::function<PeakGauge*(int threads)>& peak) {
  for (int pass = 0; pass < 2; ++pass)  // the first raises the gauges, the second reads the final peak
    for (Row& row : rows_)
      if (PeakGauge* gauge = peak(row.threads)) row.peak_fraction = gauge->fraction(row.gflops);
}

std::string Report::csv(const RunInfo& info) const {
  std::string text =
      "cpu,date,isa,pinning,section,problem,dtype,M,N,K,batch,threads,implementation,median_ms,gflops,"
      "peak_fraction,ratio,check\n";
  for (const Row& r : rows_)
    text += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{:.6g},{:.4g},{:.4f},{:.4g},{}\n", csv_escape(info.cpu),
                        csv_escape(info.date), csv_escape(info.isa), csv_escape(info.pinning), csv_escape(r.section),
                        csv_escape(r.problem), r.dtype, r.m, r.n, r.k, r.batch, r.threads, csv_escape(r.implementation),
                        1e3 * r.median_seconds, r.gflops, r.peak_fraction, r.ratio, csv_escape(r.check));
  return text;
}

double geomean(const std::vector<double>& values) {
  double log_sum = 0;
  for (double x : values) log_sum += std::log(x);
  return values.empty() ? 0 : std::exp(log_sum / double(values.size()));
}

}  // namespace polyfuse::bench
