#include "codegen/hopper_epilogue.h"

#include <algorithm>
#include <map>
#include <fmt/format.h>

#include "codegen/cuda_expressions.h"
#include "codegen/cuda_kernel_layout.h"
#include "frontend/diagnostics.h"
#include "frontend/element_type.h"
#include "frontend/ir_printer.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {

namespace {

// Batch index `position` of `dims` recovered from the linearised batch coordinate `batch`.
std::string batch_index(const Program& program, const StatementDims& dims, std::size_t position) {
  std::int64_t inner = 1;
  for (std::size_t e = position + 1; e < dims.batch_extents.size(); ++e) inner *= bound_size(program, dims.batch_extents[e]).value;
  const std::int64_t extent = bound_size(program, dims.batch_extents[position]).value;
  std::string value = inner == 1 ? "batch" : fmt::format("batch / {}", inner);
  if (position > 0) value = fmt::format("{} % {}", value, extent);  // the outermost needs no remainder
  return position > 0 || inner > 1 ? "(" + value + ")" : value;
}

// Element (pf_m, pf_n) of batch element `batch` of a row-major tensor read or written with
// `indices` by a statement whose batch, row and column indices are dims' (bound extents).
std::string element_address(const Program& program, const Access& access, const StatementDims& dims) {
  const Tensor* tensor = program.find_tensor(access.tensor);
  std::string offset;
  for (std::size_t d = 0; d < access.indices.size(); ++d) {
    const std::string& index = access.indices[d];
    std::int64_t stride = 1;
    for (std::size_t e = d + 1; e < tensor->dims.size(); ++e) stride *= bound_size(program, tensor->dims[e]).value;
    std::string term;
    if (index == dims.m) term = "pf_m";
    else if (index == dims.n) term = "pf_n";
    else {
      const auto at = std::find(dims.batch.begin(), dims.batch.end(), index);
      PF_INTERNAL_CHECK(at != dims.batch.end(), "an epilogue access indexed by the batch, row and column indices only");
      term = batch_index(program, dims, static_cast<std::size_t>(at - dims.batch.begin()));
    }
    const std::string scaled = stride == 1 ? term : fmt::format("static_cast<long long>({}) * {}", term, stride);
    offset += (offset.empty() ? "" : " + ") + scaled;
  }
  return fmt::format("{} + (in ? {} : 0)", access.tensor, offset.empty() ? "0" : offset);
}

}  // namespace

std::string hopper_epilogue_element(const Program& program, const KernelPlan& plan) {
  // The variable holding each tensor's current value; a tensor written again (an update in
  // place, `P = P + V`) gets a new one, `P_v2` (found by scripts/random-programs: `const float
  // P_v` declared twice).
  std::map<std::string, std::string> current;
  std::map<std::string, int> versions;
  auto define = [&](const std::string& tensor) {
    const int version = ++versions[tensor];
    return current[tensor] = version == 1 ? tensor + "_v" : fmt::format("{}_v{}", tensor, version);
  };
  // Only a tensor's last value is stored (each thread computes its elements' values in order).
  auto written_later = [&](const std::string& tensor, std::size_t after) {
    for (std::size_t s = after; s < plan.epilogue.size(); ++s)
      if (plan.epilogue[s].output == tensor) return true;
    return false;
  };
  std::string text;
  for (const MatmulStage& mm : plan.matmuls) {
    const std::string value = define(mm.c);
    const std::int64_t m = bound_size(program, mm.dims.m_extent).value, n = bound_size(program, mm.dims.n_extent).value;
    const std::string batch_offset = mm.dims.batch.empty() ? "" : fmt::format("static_cast<long long>(batch) * {} + ", m * n);
    if (mm.live_out && !written_later(mm.c, 0))
      text += fmt::format("      pf::stg_pred({} + (in ? {}static_cast<long long>(pf_m) * {} + pf_n : 0), pf::from_float<{}>({}), in);\n",
                          mm.c, batch_offset, n, cuda_type(program.find_tensor(mm.c)->type), value);
  }
  for (std::size_t s = 0; s < plan.epilogue.size(); ++s) {
    const PointwiseStage& stage = plan.epilogue[s];
    const Statement* statement = program.find_statement(stage.dims.statement);
    PF_INTERNAL_CHECK(statement != nullptr, "no statement " + stage.dims.statement);
    const std::string value = c_expression(statement->expr, [&](int read) {
      const Access& access = statement->reads[static_cast<std::size_t>(read)];
      if (const auto found = current.find(access.tensor); found != current.end()) return found->second;
      return fmt::format("pf::to_float(pf::ldg_pred({}, in))", element_address(program, access, stage.dims));
    });
    const std::string variable = define(stage.output);
    text += fmt::format("      const float {} = {};  // {}\n", variable, value, print_statement_source(*statement));
    if (stage.live_out && !written_later(stage.output, s + 1))
      text += fmt::format("      pf::stg_pred({}, pf::from_float<{}>({}), in);\n",
                          element_address(program, statement->write, stage.dims),
                          cuda_type(program.find_tensor(stage.output)->type), variable);
  }
  return text;
}

}  // namespace polyfuse
