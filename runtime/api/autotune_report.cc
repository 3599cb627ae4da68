#include "runtime/api/autotune_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace polyfuse::api {
namespace {

// The report in `j`; throws nlohmann::json::exception for a field of another type.
std::optional<AutotuneReport> report_of(const nlohmann::json& j, const std::vector<TuningCandidate>& candidates,
                                        const CompileOptions& options) {
  AutotuneReport report;
  report.kernel_kind = j.value("kernel_kind", "");
  report.winner = j.value("winner", "");
  report.timed = j.value("timed", false);
  report.not_timed_because = j.value("not_timed_because", "");
  for (const nlohmann::json& r : j.value("rows", nlohmann::json::array())) {
    AutotuneRow row;
    row.config = r.value("config", "");
    row.registers = r.value("registers", 0);
    row.spill_bytes = r.value("spill_bytes", 0);
    row.shared_bytes = r.value("shared_bytes", 0);
    row.threads = r.value("threads", 0);
    row.blocks_per_sm = r.value("blocks_per_sm", 0);
    row.score = r.value("score", 0.0);
    if (r.contains("time_ms") && r["time_ms"].is_number()) row.time_ms = r["time_ms"].get<double>();
    row.dropped = r.value("dropped", "");
    report.rows.push_back(std::move(row));
  }
  for (const TuningCandidate& c : candidates)
    if (to_string(c) == report.winner) {
      report.chosen = c.applied_to(options);
      report.from_cache = true;
      return report;
    }
  return std::nullopt;
}

}  // namespace

std::string report_json(const AutotuneReport& report) {
  nlohmann::json rows = nlohmann::json::array();
  for (const AutotuneRow& r : report.rows)
    rows.push_back({{"config", r.config}, {"registers", r.registers}, {"spill_bytes", r.spill_bytes},
                    {"shared_bytes", r.shared_bytes}, {"threads", r.threads}, {"blocks_per_sm", r.blocks_per_sm},
                    {"score", r.score}, {"time_ms", r.time_ms ? nlohmann::json(*r.time_ms) : nlohmann::json()},
                    {"dropped", r.dropped}});
  const nlohmann::json j = {{"kernel_kind", report.kernel_kind}, {"rows", rows},
                            {"winner", report.winner},           {"timed", report.timed},
                            {"not_timed_because", report.not_timed_because}};
  return j.dump();
}

std::optional<AutotuneReport> report_from_json(const std::string& text, const std::vector<TuningCandidate>& candidates,
                                               const CompileOptions& options) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  try {
    return report_of(j, candidates, options);
  } catch (const nlohmann::json::exception&) {  // a field of another type
    return std::nullopt;
  }
}

}  // namespace polyfuse::api

namespace polyfuse {

std::string AutotuneReport::summary() const {
  return fmt::format("autotuned: {} ({})", winner, timed ? "timed" : "static");
}

std::string AutotuneReport::to_string() const {
  std::string text = fmt::format("autotune ({} kernel{}):\n", kernel_kind, from_cache ? ", from the cache" : "");
  text += fmt::format("  {:<40} {:>5} {:>6} {:>8} {:>7} {:>7} {:>7} {:>10}\n", "config", "regs", "spills", "shared",
                      "threads", "blk/SM", "score", "time");
  for (const AutotuneRow& r : rows) {
    if (!r.dropped.empty() && r.registers == 0) {
      text += fmt::format("  {:<40} dropped: {}\n", r.config, r.dropped);
      continue;
    }
    text += fmt::format("  {:<40} {:>5} {:>6} {:>8} {:>7} {:>7} {:>7.1f} {:>10}", r.config, r.registers, r.spill_bytes,
                        r.shared_bytes, r.threads, r.blocks_per_sm, r.score,
                        r.time_ms ? fmt::format("{:.4f} ms", *r.time_ms) : "-");
    text += r.dropped.empty() ? "\n" : "  dropped: " + r.dropped + "\n";
  }
  if (!timed) text += "could not time: " + not_timed_because + " (static ranking only)\n";
  return text + summary() + "\n";
}

}  // namespace polyfuse
