#include "schedule/loop_nest_threads.h"

#include <algorithm>

#include "schedule/cpu_parallel_stages.h"
#include "schedule/cpu_plan.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {

std::int64_t loop_nest_flops(const Program& program, const Statement& statement) {
  std::int64_t points = 1;
  for (const IterationIndex& index : statement.indices) points *= bound_size(program, index.extent).value;
  return points * (kCpuFlopsPerElement + expr_operation_count(statement.expr));
}

std::string loop_nest_outer_index(const Statement& statement) {
  for (const IterationIndex& index : statement.indices)
    if (!index.is_reduction) return index.name;
  return {};
}

std::string loop_nest_serial_reason(const Statement& statement) {
  const std::string outer = loop_nest_outer_index(statement);
  if (outer.empty()) return "a scalar result";
  if (std::find(statement.write.indices.begin(), statement.write.indices.end(), outer) == statement.write.indices.end())
    return "its outer index " + outer + " is not a plain subscript of the write";
  const auto gathers = [](const Access& access) {
    return access.is_index || std::any_of(access.subscripts.begin(), access.subscripts.end(),
                                          [](const AffineIndex& subscript) { return subscript.is_gather(); });
  };
  if (gathers(statement.write)) return "a gather (its range check throws)";
  for (const Access& read : statement.reads) {
    if (gathers(read)) return "a gather (its range check throws)";
    if (read.tensor == statement.write.tensor && (!read.is_plain() || read.indices != statement.write.indices))
      return "it reads " + read.tensor + " at another element than it writes";
  }
  return {};
}

}  // namespace polyfuse
