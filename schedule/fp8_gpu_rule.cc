#include "schedule/fp8_gpu_rule.h"

#include <fmt/format.h>

#include "frontend/diagnostics.h"
#include "schedule/gpu_options.h"

namespace polyfuse {

namespace {

[[noreturn]] void refuse_at(const Program& program, const Tensor& tensor, const std::string& why) {
  throw UserError({Diagnostic{program.file, tensor.location.line, tensor.location.col,
                              fmt::format("tensor {} of def '{}' is {}: {}", quote_name(tensor.name), program.name,
                                          to_string(tensor.type), why)}});
}

const Tensor* first_fp8(const Program& program) {
  for (const Tensor& tensor : program.tensors)
    if (is_fp8(tensor.type)) return &tensor;
  return nullptr;
}

}  // namespace

void refuse_fp8_on_gpu(const Program& program, const std::string& why) {
  if (const Tensor* tensor = first_fp8(program)) refuse_at(program, *tensor, why);
}

void check_fp8_gemm(const Program& program, const KernelPlan& plan, Arch arch) {
  const Tensor* fp8 = first_fp8(program);
  if (!fp8) return;
  if (arch != Arch::sm_90a)
    refuse_at(program, *fp8,
              fmt::format("FP8 tensor cores on the GPU path are wgmma's on sm_90a (--arch sm_90a), not {} (sm_80 and "
                          "sm_86 mma.sync has no FP8 form; sm_89's FP8 mma.sync is not built); or run it on the CPU "
                          "target (--target=cpu)",
                          to_string(arch)));
  if (plan.matmuls.size() != 1)
    refuse_at(program, *fp8, "the GPU path reads FP8 only as the operands of one plain GEMM (sm_90a TMA + wgmma)");
  const MatmulStage& mm = plan.matmuls[0];
  const Tensor& a = *program.find_tensor(mm.a);
  const Tensor& b = *program.find_tensor(mm.b);
  if (is_fp8(a.type) != is_fp8(b.type)) {
    const Tensor& other = is_fp8(a.type) ? b : a;
    refuse_at(program, is_fp8(a.type) ? a : b,
              fmt::format("mixed FP8 x {} operands: wgmma's FP8 form takes two FP8 operands (convert {} to FP8, or "
                          "run it on the CPU target)",
                          to_string(other.type), quote_name(other.name)));
  }
  for (const Tensor& tensor : program.tensors)
    if (is_fp8(tensor.type) && tensor.name != mm.a && tensor.name != mm.b)
      refuse_at(program, tensor, "the GPU path reads FP8 tensors only as a matmul's A and B (not in prologues or "
                                 "epilogues yet)");
  if (mm.a_prologue || mm.b_prologue)
    refuse_at(program, mm.a_prologue ? a : b, "the GPU path reads FP8 operands as they are stored (a prologue on an FP8 "
                                               "operand is not built)");
  if (mm.a_layout != OperandLayout::row_major)
    refuse_at(program, a, fmt::format("FP8 wgmma reads both operands K-major; a transposing copy is not built yet "
                                      "(store A as {}(m, k))", a.name));
  if (mm.b_layout != OperandLayout::col_major)
    refuse_at(program, b, fmt::format("FP8 wgmma reads both operands K-major; a transposing copy is not built yet "
                                      "(store B as {}(n, k))", b.name));
}

void refuse_fp8_fallback(const Program& program, const std::string& fallback_reason) {
  refuse_fp8_on_gpu(program, fmt::format("only the sm_90a TMA + wgmma main loop reads FP8, and it does not take this "
                                         "kernel ({}); FP8 rows must be multiples of 16 bytes for TMA (K a multiple of 16)",
                                         fallback_reason));
}

}  // namespace polyfuse
