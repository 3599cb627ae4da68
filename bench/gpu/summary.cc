#include "bench/gpu/summary.h"

#include <fmt/format.h>

#include <set>

#include "bench/gpu/conv_idioms.h"
#include "bench/gpu/goals.h"
#include "bench/gpu/stats.h"

namespace polyfuse::bench {

std::vector<std::string> summary_lines(const std::vector<ResultRow>& rows) {
  std::vector<std::string> lines;
  std::vector<std::string> names;
  for (const Idiom& idiom : all_idioms()) names.push_back(idiom.name);
  for (const ConvIdiom& idiom : conv_idioms()) names.push_back(idiom.name);
  for (const std::string& name : names) {
    for (DType dtype : all_dtypes()) {
      bool present = false;
      for (const ResultRow& row : rows) present |= row.idiom == name && row.dtype == dtype;
      if (!present) continue;
      std::vector<Variant> ours_variants = {Variant::polyfuse_best, Variant::polyfuse_default};
      for (const ResultRow& row : rows)
        if (row.idiom == name && row.dtype == dtype && row.polyfuse_autotuned_ms) {
          ours_variants.push_back(Variant::polyfuse_autotuned);  // --autotune
          break;
        }
      for (Variant ours : ours_variants) {
        for (Variant baseline : baselines_of(name)) {
          std::vector<double> speedups;
          int problems = 0;
          for (const ResultRow& row : rows) {
            if (row.idiom != name || row.dtype != dtype) continue;
            ++problems;
            if (auto s = row.speedup(ours, baseline)) speedups.push_back(*s);
          }
          const SpeedupStats stats = speedup_stats(speedups);
          std::string line = fmt::format("{:<18} {:<4} {:<16} vs {:<12}: ", name, to_string(dtype),
                                         to_string(ours), to_string(baseline));
          if (stats.count == 0) {
            line += fmt::format("geomean n/a (no size with both times, of {} sizes)", problems);
          } else {
            line += fmt::format("geomean {:.3f}x  min {:.3f}x  max {:.3f}x  >=1.0 on {:.0f}% of {} sizes",
                                stats.geomean, stats.min, stats.max, 100.0 * stats.share_at_least_one,
                                stats.count);
          }
          if (auto goal = find_goal(name, dtype, ours, baseline))
            line += "  | " + describe_goal(*goal, stats.geomean, stats.count);
          lines.push_back(line);
        }
      }
    }
  }
  return lines;
}

std::string summary_text(const RunEnvironment& environment, const std::vector<ResultRow>& rows) {
  std::string text;
  text += fmt::format("polyfuse-bench summary\n");
  text += fmt::format("gpu: {}\ndriver: {}  cuda runtime: {}  cublas: {}  cudnn: {}\ndate: {}\ncommand: {}\n",
                      environment.gpu, environment.driver, environment.cuda_runtime, environment.cublas,
                      environment.cudnn, environment.date, environment.command);
  text += fmt::format("method: CUDA events, {} warm-up + median of {} timed launches, L2 {}\n", environment.warmup,
                      environment.repeats,
                      environment.l2_flush ? "flushed before every launch" : "NOT flushed (--no-flush)");
  text += "speedup = baseline time / polyfuse time (> 1: polyfuse faster)\n";
  if (environment.gpu.find("H100") == std::string::npos)
    text += "note: issue 7's goals are stated for an H100; this GPU is not one\n";
  std::set<std::string> failed;
  for (const ResultRow& row : rows)
    if (row.check != "ok") failed.insert(row.idiom);
  for (const std::string& line : summary_lines(rows)) text += line + "\n";
  if (!failed.empty()) {
    text += "CHECK FAILURES in:";
    for (const std::string& idiom : failed) text += " " + idiom;
    text += " (see the check column of the CSV; failed variants were not timed)\n";
  }
  return text;
}

}  // namespace polyfuse::bench
