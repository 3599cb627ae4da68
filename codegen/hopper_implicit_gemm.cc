#include "codegen/hopper_implicit_gemm.h"

#include <fmt/format.h>

#include "codegen/cuda_kernel_layout.h"
#include "codegen/hopper_gemm_emit.h"
#include "codegen/im2col_gather.h"
#include "frontend/diagnostics.h"
#include "frontend/idioms.h"
#include "frontend/ir_printer.h"
#include "schedule/implicit_gemm.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {

MainLoopChoice implicit_gemm_main_loop(const Program& program, const PlannedKernel& planned, const GpuOptions& options) {
  MainLoopChoice choice;
  if (!has_wgmma(options.arch)) return choice;
  PF_INTERNAL_CHECK(planned.view && !planned.statements.empty(), "an implicit GEMM kernel without its view");
  const Statement& conv = *program.find_statement(planned.statements.front());
  const ContractionGrouping grouping = implicit_gemm_grouping(program, conv);
  if (!grouping.conv_groups.empty()) {
    choice.fallback_reason = "the TMA + wgmma main loop does not run grouped convolutions (one GEMM per group) yet";
    return choice;
  }
  if (implicit_gemm_by_element(program, conv)) {
    choice.fallback_reason = "channels that are not whole 16-byte chunks: the gather into the TMA + wgmma tiles moves "
                             "chunks of 8 channels";
    return choice;
  }
  const Program& view = *planned.view;
  const KernelPlan plan = plan_gpu_kernel(view, recognize_idioms(view), options.f32_matmul);
  if (!plan.matmuls.empty() && plan.matmuls.front().operand_type == ElementType::f32) {
    choice.fallback_reason = "f32 convolutions (the gather into the TMA + wgmma tiles moves 16-bit elements; they run "
                             "TF32 mma.sync m16n8k8)";
    return choice;
  }
  const MainLoopChoice gemm = choose_main_loop(view, plan, options);
  if (gemm.loop != MainLoop::tma_wgmma) {
    choice.fallback_reason = gemm.fallback_reason;
    return choice;
  }
  if (gemm.b_copy != OperandCopy::tma) {  // A is gathered by the threads: B must come by TMA
    choice.fallback_reason = gemm.thread_copy_reason;
    return choice;
  }
  choice.loop = MainLoop::tma_wgmma;
  choice.a_copy = OperandCopy::threads;
  choice.thread_copy_reason = fmt::format("the im2col matrix of {}, gathered", conv.reads[static_cast<std::size_t>(grouping.a_read)].tensor);
  return choice;
}

EmittedKernel emit_hopper_implicit_gemm(const Program& program, const PlannedKernel& planned, const GpuOptions& options,
                                        const MainLoopChoice& choice) {
  PF_INTERNAL_CHECK(choice.loop == MainLoop::tma_wgmma && choice.a_copy == OperandCopy::threads,
                    "the sm_90a implicit GEMM gathers A by threads");
  Program view = *planned.view;
  view.name = planned.name;
  const KernelPlan plan = plan_gpu_kernel(view, recognize_idioms(view), options.f32_matmul);
  const MatmulStage& mm = plan.matmuls[0];
  const Statement& conv = *program.find_statement(planned.statements.front());
  // the gather's functions beside the producer's variables (the kernel's other names are never
  // read by them)
  const Im2colGather g = im2col_gather(program, conv, {"smem", "full", "empty", "epilogue_bar", "it", "tile", "m0", "n0",
                                                       "kb", "stage", "prologue", "batch"});
  const Tensor& input = *program.find_tensor(g.input.tensor);
  const HopperGather gather{input.name, gather_functions(g, cuda_type(input.type), 8)};
  const std::string note = fmt::format(
      "// {}: {}\n// as an implicit GEMM: {}[{}][{}] += A[{}][{}] * {} ({}), A the im2col matrix of {}, gathered by the "
      "producer's threads.\n",
      conv.id, print_statement_source(conv), mm.c, product(g, g.grouping.m), product(g, g.grouping.n),
      product(g, g.grouping.m), product(g, g.grouping.k), mm.b, g.grouping.b_column_major ? "[N][K]" : "[K][N]", input.name);
  EmittedKernel kernel = emit_hopper_gemm(view, plan, options, choice, CudaEmitRequest::Helpers::omit, &gather, note);
  // the view's parameters, its unmaterialised A replaced by the input itself (unless an epilogue
  // reads the input too: a parameter already)
  std::vector<KernelParameter> parameters;
  for (const KernelParameter& p : kernel.metadata.parameters) {
    if (p.name != mm.a) {
      parameters.push_back(p);
      continue;
    }
    if (view.find_tensor(input.name)) continue;
    KernelParameter in = p;
    in.name = input.name;
    in.c_type = "const " + cuda_type(input.type) + "*";
    in.shape.clear();
    for (const std::int64_t dim : g.input_dims) in.shape.push_back(std::to_string(dim));
    parameters.push_back(in);
  }
  kernel.metadata.parameters = parameters;
  return kernel;
}

}  // namespace polyfuse
