#include "schedule/kernel_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

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

}  // namespace polyfuse
