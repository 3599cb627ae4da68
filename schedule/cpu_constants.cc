#include "schedule/cpu_constants.h"

#include <algorithm>

#include "frontend/diagnostics.h"
#include "schedule/cpu_parallel_stages.h"

namespace polyfuse {

void mark_constant_inputs(const Program& program, const std::vector<std::string>& constant_inputs, CpuPlan& plan) {
  std::string inputs;
  for (const CpuTensor& tensor : plan.tensors)
    if (tensor.role == TensorRole::input && !tensor.synthetic) inputs += (inputs.empty() ? "" : ", ") + tensor.name;
  for (const std::string& name : constant_inputs) {
    const bool input = std::any_of(plan.tensors.begin(), plan.tensors.end(), [&](const CpuTensor& tensor) {
      return tensor.name == name && tensor.role == TensorRole::input && !tensor.synthetic;
    });
    if (!input)
      throw UserError({Diagnostic{program.file, program.location.line, program.location.col,
                                  "constant input " + quote_name(name) + ": def " + quote_name(program.name) +
                                      " has no input of that name (its inputs: " + inputs + ")"}});
  }
  plan.constant_inputs = constant_inputs;
  for (CpuStage& stage : plan.stages)
    for (CpuMatmul& matmul : stage.matmuls) {
      const bool constant = std::find(constant_inputs.begin(), constant_inputs.end(), matmul.b.tensor) !=
                            constant_inputs.end();
      if (!constant) continue;
      matmul.b_constant = true;
      if (matmul.conv ? !matmul.conv->panel_per_block : !cpu_stage_shares_b(stage)) matmul.b_constant = false;
    }
}

}  // namespace polyfuse
