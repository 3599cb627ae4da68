#include "codegen/fragment_pipeline.h"

#include <fmt/format.h>

#include "schedule/copies.h"

namespace polyfuse {

std::string fragment_pipeline_refusal(const KernelPlan& plan, const GpuOptions& o, const CudaKernelLayout& layout) {
  const int slices = o.warp.k / mma_tile(o.mma).k;
  if (o.stages < 2) return "one shared stage (--stages 1): the next k-step's tile arrives only after the MMAs";
  if (layout.f32_operands) return "f32 operands: the TF32 fragments are converted in place, loaded k-slice by k-slice";
  if (o.mma != MmaShape::m16n8k16) return fmt::format("the m8n8k4 macro-MMAs (--mma {})", to_string(o.mma));
  if (slices % 2 != 0)
    return fmt::format("{} k-slice{} per k-step (warp k {}): the two sets would swap between k-steps", slices,
                       slices == 1 ? "" : "s", o.warp.k);
  return "";
}

FragmentPipelineChoice choose_fragment_pipeline(const KernelPlan& plan, const GpuOptions& o, const CudaKernelLayout& layout) {
  const std::string refusal = fragment_pipeline_refusal(plan, o, layout);
  if (!refusal.empty()) return {false, "one fragment set: " + refusal};
  if (!layout.register_model.pipelined)
    return {false, "one fragment set: two sets across k-steps do not fit the register limit (the register model)"};
  return {true, fmt::format("two fragment sets: k-slice j+1's ldmatrix under k-slice j's MMAs, the next k-step's first "
                            "under the last ({} k-slices per k-step; the wait and barrier before the last), in the full "
                            "blocks' k-step loop (the edge blocks and a K-tail k-step keep one set)",
                            o.warp.k / mma_tile(o.mma).k)};
}

AstPrintHooks::FragmentPipeline fragment_pipeline_hooks(const CudaStatementContext& context) {
  AstPrintHooks::FragmentPipeline hooks;
  hooks.slices = context.options.warp.k / mma_tile(context.options.mma).k;
  hooks.stages = context.options.stages;
  const KernelPlan& plan = context.plan;
  hooks.is_wait = [&plan](const std::string& name) {
    for (const MatmulStage& mm : plan.matmuls)
      if (name == copy_statement_name(mm.dims.statement, "wait_shared")) return true;
    return false;
  };
  hooks.is_fragment_load = [&plan](const std::string& name) {
    for (const MatmulStage& mm : plan.matmuls)
      if (name == copy_statement_name(mm.dims.statement, "A_to_fragments") ||
          name == copy_statement_name(mm.dims.statement, "B_to_fragments"))
        return true;
    return false;
  };
  hooks.statement = [&context](const std::string& name, const std::vector<std::string>& args, const std::string& set) {
    return print_cuda_statement(context, name, args, set);
  };
  hooks.wait = [&context](const std::string& name, const std::vector<std::string>& args, const std::string& guard,
                          bool after_loop) { return print_ring_wait(context, name, args, guard, after_loop); };
  return hooks;
}

}  // namespace polyfuse
