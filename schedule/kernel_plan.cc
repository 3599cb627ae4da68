#include "schedule/kernel_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frontend/diagnostics.h"

namespace polyfuse {

const char* to_string(OperandLayout layout) {
  return layout == OperandLayout::row_major ? "row" : "col";
}

std::string StatementDims::tuple_text() const {
  std::vector<std::string> names = batch;
  names.push_back(m);
  names.push_back(n);
  if (k) names.push_back(*k);
  return fmt::format("{}[{}]", statement, fmt::join(names, ", "));
}

int KernelPlan::batch_rank() const {
  if (!matmuls.empty()) return static_cast<int>(matmuls.front().dims.batch.size());
  if (!epilogue.empty()) return static_cast<int>(epilogue.front().dims.batch.size());
  return 0;
}

std::vector<StatementDims> KernelPlan::all_statements() const {
  std::vector<StatementDims> all;
  for (const MatmulStage& mm : matmuls) all.push_back(mm.dims);
  for (const PointwiseStage& pw : epilogue) all.push_back(pw.dims);
  return all;
}

std::vector<StatementDims> MatmulGroup::dims() const {
  std::vector<StatementDims> all;
  for (const MatmulStage* mm : members) all.push_back(mm->dims);
  return all;
}

std::vector<MatmulGroup> KernelPlan::matmul_groups() const {
  std::vector<MatmulGroup> groups;
  for (const MatmulStage& mm : matmuls) {
    if (!mm.shares_a_with_previous || groups.empty()) groups.emplace_back();
    groups.back().members.push_back(&mm);
  }
  return groups;
}

MatmulGroup KernelPlan::group_of(const std::string& statement) const {
  for (const MatmulGroup& group : matmul_groups())
    for (const MatmulStage* mm : group.members)
      if (mm->dims.statement == statement) return group;
  PF_INTERNAL_CHECK(false, "no matmul statement " + statement);
}

}  // namespace polyfuse
