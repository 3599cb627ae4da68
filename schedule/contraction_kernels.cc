#include "schedule/contraction_kernels.h"

#include <fmt/format.h>

#include <optional>

#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

// Why plan_gpu_kernel refuses a contraction's GEMM view; none when it takes it.
std::optional<UserError> gemm_view_refusal(const ContractionPlan& steps, F32Matmul f32) {
  for (const ContractionStep& step : steps.steps) {
    if (step.kind != ContractionStep::Kind::gemm) continue;
    try {
      plan_gpu_kernel(*step.view, recognize_idioms(*step.view), f32);
    } catch (const UserError& error) {
      return error;
    }
  }
  return std::nullopt;
}

}  // namespace

bool plan_contraction_kernels(const Program& program, const Statement& s, const ContractionGrouping& grouping,
                              F32Matmul f32, ProgramPlan& plan, std::vector<ContractionTemporary>& temporaries, std::string& note) {
  if (std::any_of(s.indices.begin(), s.indices.end(),
                  [&](const IterationIndex& i) { return bound_size(program, i.extent).is_symbolic(); }))
    return false;  // refused below: a plan of several kernels needs every size bound
  // With the epilogues the GEMM kernel takes, else without.
  std::vector<GroupedEpilogue> epilogues = epilogues_after(program, s, grouping);
  ContractionPlan steps = plan_contraction(program, s, grouping, epilogues, kept_tensors(program, s, epilogues));
  if (!epilogues.empty() && gemm_view_refusal(steps, f32)) {
    epilogues.clear();
    steps = plan_contraction(program, s, grouping, epilogues, kept_tensors(program, s, epilogues));
  }
  if (const std::optional<UserError> refusal = gemm_view_refusal(steps, f32)) {
    const UserError& error = *refusal;
    // The refusal without its place in the view ("statement S0 of def 'gemm': ").
    std::string why = error.diagnostics().empty() ? error.what() : error.diagnostics().front().message;
    if (const std::size_t at = why.find("': "); why.starts_with("statement ") && at != std::string::npos)
      why = why.substr(at + 3);
    note = fmt::format("a reduction kernel, not tensor cores: {} groups as {} ({}), which no tensor-core kernel "
                       "takes: {}",
                       s.id, grouping.a_gathered ? "an implicit GEMM" : "a GEMM", grouping.groups(), why);
    return false;
  }
  for (ContractionStep& step : steps.steps) {
    const bool gemm = step.kind == ContractionStep::Kind::gemm;
    const PlannedKernelKind gemm_kind =
        grouping.a_gathered ? PlannedKernelKind::implicit_gemm : PlannedKernelKind::fused_matmul;
    PlannedKernel kernel{gemm ? gemm_kind : PlannedKernelKind::pointwise, "", {}, "", "", "", {}, ""};
    if (gemm) kernel.statements.push_back(s.id);
    for (const GroupedEpilogue& e : epilogues)
      if (gemm) kernel.statements.push_back(e.statement);
    kernel.view = std::move(step.view);
    kernel.step = std::move(step.description);
    if (!plan.kernels.empty() && plan.kernels.back().view && plan.kernels.back().cut.empty())
      plan.kernels.back().cut = "the next step of the contraction";
    plan.kernels.push_back(std::move(kernel));
  }
  temporaries.insert(temporaries.end(), steps.temporaries.begin(), steps.temporaries.end());
  return true;
}


}  // namespace polyfuse
