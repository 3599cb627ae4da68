#include "codegen/hopper_epilogue.h"

#include <algorithm>
#include <fmt/format.h>

#include "codegen/cuda_expressions.h"
#include "codegen/cuda_kernel_layout.h"
#include "frontend/diagnostics.h"
#include "frontend/element_type.h"
#include "frontend/ir_printer.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {

namespace {

// Element (pf_m, pf_n) of a row-major tensor read or written with `indices` by a statement whose
// row and column indices are `m` and `n` (bound extents).
std::string element_address(const Program& program, const Access& access, const StatementDims& dims) {
  const Tensor* tensor = program.find_tensor(access.tensor);
  std::string offset;
  for (std::size_t d = 0; d < access.indices.size(); ++d) {
    const std::string& index = access.indices[d];
    PF_INTERNAL_CHECK(index == dims.m || index == dims.n, "an epilogue access indexed by the row and column only");
    std::int64_t stride = 1;
    for (std::size_t e = d + 1; e < tensor->dims.size(); ++e) stride *= bound_size(program, tensor->dims[e]).value;
    const std::string term = index == dims.m ? "pf_m" : "pf_n";
    const std::string scaled = stride == 1 ? term : fmt::format("static_cast<long long>({}) * {}", term, stride);
    offset += (offset.empty() ? "" : " + ") + scaled;
  }
  return fmt::format("{} + (in ? {} : 0)", access.tensor, offset.empty() ? "0" : offset);
}

}  // namespace

std::string hopper_epilogue_element(const Program& program, const KernelPlan& plan) {
  const MatmulStage& mm = plan.matmuls[0];
  std::vector<std::string> computed = {mm.c};
  std::string text;
  if (mm.live_out)
    text += fmt::format("      pf::stg_pred({} + (in ? static_cast<long long>(pf_m) * {} + pf_n : 0), pf::from_float<{}>({}_v), in);\n",
                        mm.c, bound_size(program, mm.dims.n_extent).value, cuda_type(program.find_tensor(mm.c)->type), mm.c);
  for (const PointwiseStage& stage : plan.epilogue) {
    const Statement* statement = program.find_statement(stage.dims.statement);
    PF_INTERNAL_CHECK(statement != nullptr, "no statement " + stage.dims.statement);
    const std::string value = c_expression(statement->expr, [&](int read) {
      const Access& access = statement->reads[static_cast<std::size_t>(read)];
      if (std::find(computed.begin(), computed.end(), access.tensor) != computed.end()) return access.tensor + "_v";
      return fmt::format("pf::to_float(pf::ldg_pred({}, in))", element_address(program, access, stage.dims));
    });
    text += fmt::format("      const float {}_v = {};  // {}\n", stage.output, value, print_statement_source(*statement));
    computed.push_back(stage.output);
    if (stage.live_out)
      text += fmt::format("      pf::stg_pred({}, pf::from_float<{}>({}_v), in);\n",
                          element_address(program, statement->write, stage.dims),
                          cuda_type(program.find_tensor(stage.output)->type), stage.output);
  }
  return text;
}

}  // namespace polyfuse
