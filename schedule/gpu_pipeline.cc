#include "schedule/gpu_pipeline.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frontend/diagnostics.h"
#include "schedule/contraction.h"
#include "schedule/copies.h"
#include "schedule/gpu_mapping.h"
#include "schedule/initial_schedule.h"
#include "schedule/schedule_printer.h"
#include "schedule/tiling.h"

namespace polyfuse {

const std::vector<std::string>& gpu_pass_names() {
  static const std::vector<std::string> names{"initial",      "block_tile",      "warp_tile",
                                              "split_k",      "strip_mine_k",    "contract_to_mma",
                                              "prefetch",      "insert_copies",   "map_to_gpu"};
  return names;
}

void validate_dump_request(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (name == "all") continue;
    const auto& known = gpu_pass_names();
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw UserError(fmt::format("`dump_after`: unknown pass '{}' (passes: {}, or all)", name, fmt::join(known, ", ")));
  }
}

namespace {

// Logs a pass's result when asked to, like Halide's `debug(2) << "Lowering after ..."`.
class PassLog {
 public:
  explicit PassLog(const PassDumps& dumps) : dumps_(dumps) {}
  void after(const std::string& pass, const isl::schedule& schedule) const {
    if (dumps_.out == nullptr) return;
    bool wanted = std::find(dumps_.after.begin(), dumps_.after.end(), "all") != dumps_.after.end() ||
                  std::find(dumps_.after.begin(), dumps_.after.end(), pass) != dumps_.after.end();
    if (wanted) *dumps_.out << "# schedule after " << pass << "\n" << schedule_to_text(schedule);
  }

 private:
  const PassDumps& dumps_;
};

using Pass = isl::schedule (*)(const isl::schedule&, const KernelPlan&, const GpuOptions&);

isl::schedule run_pass(const std::string& name, Pass pass, const isl::schedule& schedule, const KernelPlan& plan,
                       const GpuOptions& options) {
  try {
    return pass(schedule, plan, options);
  } catch (const isl::exception& error) {
    throw InternalError(fmt::format("schedule pass {} failed in isl: {}", name, error.what()));
  }
}

}  // namespace

isl::schedule build_gpu_schedule(const KernelPlan& plan, const GpuOptions& options, const PassDumps& dumps) {
  PassLog log(dumps);
  isl::schedule s;
  try {
    s = initial_schedule(plan);
  } catch (const isl::exception& error) {
    throw InternalError(fmt::format("schedule pass initial failed in isl: {}", error.what()));
  }
  log.after("initial", s);
  s = run_pass("block_tile", block_tile, s, plan, options);          log.after("block_tile", s);
  s = run_pass("warp_tile", warp_tile, s, plan, options);            log.after("warp_tile", s);
  s = run_pass("split_k", split_k, s, plan, options);                log.after("split_k", s);
  s = run_pass("strip_mine_k", strip_mine_k, s, plan, options);      log.after("strip_mine_k", s);
  s = run_pass("contract_to_mma", contract_to_mma, s, plan, options); log.after("contract_to_mma", s);
  s = run_pass("prefetch", prefetch, s, plan, options);              log.after("prefetch", s);
  s = run_pass("insert_copies", insert_copies, s, plan, options);    log.after("insert_copies", s);
  s = run_pass("map_to_gpu", map_to_gpu, s, plan, options);          log.after("map_to_gpu", s);
  return s;
}

}  // namespace polyfuse
