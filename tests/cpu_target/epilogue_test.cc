// The BRGEMM's epilogue on the CPU target (schedule/cpu_epilogue.h): which last touches the
// BRGEMM does itself (u(C + v) with v a row or column of the block, an f32 output) and which
// stay a pass (a residual matrix, a scale, an f16 output, a block read again), the code that
// does them (bias at the block, the tail's call, a convolution's last tap storing into the
// output from a block buffer), every one against the reference, and planted errors.
#include <gtest/gtest.h>

#include "codegen/cpu_emit.h"
#include "runtime/api/run_program.h"
#include "schedule/cpu_plan.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

RunRequest cpu_request() { return cpu_run_request(7); }

// The epilogue of the plan's only matmul, or null.
const CpuEpilogue* epilogue_of(const CpuPlan& plan) {
  for (const CpuStage& stage : plan.stages)
    for (const CpuMatmul& matmul : stage.matmuls)
      if (matmul.epilogue) return &*matmul.epilogue;
  return nullptr;
}

std::string gemm_with(const std::string& inputs, const std::string& output_type, const std::string& last_touch) {
  return "def g(f32(M, K) A, f32(K, N) B" + inputs + ") -> (" + output_type + "(M, N) D) {\n"
         "  C(m, n) +=! A(m, k) * B(k, n)\n  D(m, n) = " + last_touch + "\n}\n";
}

const SizeBindings kSizes = {{"M", 45}, {"N", 50}, {"K", 40}};

struct Case {
  std::string text;
  bool fused;
  const char* bias_along;  // "n", "m" or "" (none)
  bool addend = false;
};

std::vector<Case> cases() {
  return {
      {gemm_with(", f32(N) bias", "f32", "relu(C(m, n) + bias(n))"), true, "n"},
      {gemm_with(", f32(N) bias", "f32", "bias(n) + C(m, n)"), true, "n"},
      {gemm_with(", f32(M) s", "f32", "gelu(C(m, n) + s(m))"), true, "m"},
      {gemm_with(", f32(N) bias", "f32", "tanh(bias(n) + C(m, n))"), true, "n"},
      {gemm_with("", "f32", "sigmoid(C(m, n))"), true, ""},
      {gemm_with(", f32(M, N) R", "f32", "R(m, n) + C(m, n)"), true, "", true},
      {gemm_with(", f32(N) bias, f32(M, N) R", "f32", "relu(C(m, n) + bias(n) + R(m, n))"), true, "n", true},
      {gemm_with(", f32(M) s, f32(M, N) R", "f32", "silu(R(m, n) + (s(m) + C(m, n)))"), true, "m", true},
      {gemm_with(", f32(N) bias, f32(M, N) R", "f32", "C(m, n) + R(m, n) + bias(n)"), false, ""},  // order
      {gemm_with(", f32(N, M) R", "f32", "C(m, n) + R(n, m)"), false, ""},       // transposed
      {gemm_with(", f32(N) s", "f32", "C(m, n) * s(n)"), false, ""},             // not a sum
      {"def g(bf16(M, K) A, bf16(K, N) B, f32(N) bias) -> (f32(M, N) D) {\n"
       "  C(m, n) +=! A(m, k) * B(k, n)\n  D(m, n) = relu(C(m, n) + bias(n))\n}\n",
       true, "n"},  // bf16 operands, packed (widened or bf16 pairs), an f32 result
      {gemm_with(", f32(N) bias", "f16", "relu(C(m, n) + bias(n))"), false, ""}, // f16 output
      {gemm_with(", f16(N) bias", "f32", "relu(C(m, n) + bias(n))"), false, ""}, // f16 bias
      {gemm_with(", f32(N) bias", "f32", "relu(C(m, n) + bias(n) + bias(n))"), false, ""},
  };
}

// Which last touches the BRGEMM does, and every program (fused or not) against the reference,
// at small blocks (several column blocks: the bias at each block's first column; a k tail:
// the epilogue on the tail's call) and the default ones.
TEST(CpuEpilogue, FusedWhereTheBrgemmCanFinishTheBlock) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.text);
    const Program program = compile_text(c.text, kSizes);
    for (bool small : {true, false}) {
      RunRequest request = cpu_request();
      if (small) request.cpu_schedule.blocking = {16, 24, 32};  // kc = 32 of K = 40: a tail of 8
      const CpuPlan plan = plan_cpu(program, request.cpu_schedule);
      const CpuEpilogue* epilogue = epilogue_of(plan);
      ASSERT_EQ(epilogue != nullptr, c.fused) << to_string(plan);
      if (epilogue) {
        EXPECT_EQ(epilogue->statement, "S1");
        EXPECT_EQ(epilogue->bias.has_value(), std::string(c.bias_along) != "") << to_string(plan);
        EXPECT_EQ(epilogue->addend.has_value(), c.addend) << to_string(plan);
        const std::string code = emit_cpu(plan, program);
        if (*c.bias_along) {
          EXPECT_NE(code.find(std::string("BiasAlong::") + c.bias_along), std::string::npos) << code;
        }
        EXPECT_EQ(code.find(".addend = true") != std::string::npos, c.addend) << code;
        EXPECT_EQ(code.find("static const Binary"), std::string::npos) << code;
        if (small) {
          EXPECT_NE(code.find("S0_tail({"), std::string::npos) << code;
        }
      }
      const RunReport report = run_program(program, request);
      EXPECT_TRUE(report.check.ok) << (small ? "small blocks: " : "") << report.check.to_string();
    }
  }
}

// A convolution whose output rows are 1 KiB apart (K = 256) and whose outer taps would load and
// store them thrice accumulates in a block buffer; its last tap's call stores the output
// (EpilogueArgs::d). A 1x3 filter (one outer iteration) makes one call with the epilogue.
TEST(CpuEpilogue, ConvolutionsFinishOnTheirLastTap) {
  const std::string text =
      "def conv(f32(N, H, W, C) I, f32(K, R, S, C) F, f32(K) bias) -> (f32(N, H, W, K) O) {\n"
      "  Y(n, h, w, k) +=! I(n, h + r - 1, w + s - 1, c) * F(k, r, s, c) where h in 0:H, w in 0:W, I = 0 outside\n"
      "  O(n, h, w, k) = relu(Y(n, h, w, k) + bias(k))\n}\n";
  const std::vector<std::pair<SizeBindings, std::string>> shapes = {
      {{{"N", 1}, {"H", 4}, {"W", 5}, {"C", 7}, {"K", 256}, {"R", 3}, {"S", 3}}, ".d = O + "},
      {{{"N", 2}, {"H", 3}, {"W", 6}, {"C", 5}, {"K", 19}, {"R", 1}, {"S", 3}}, "EpilogueArgs{.bias = bias + k0}"},
  };
  for (const auto& [sizes, expected] : shapes) {
    const Program program = compile_text(text, sizes, "conv.tc");
    const CpuPlan plan = plan_cpu(program);
    ASSERT_NE(epilogue_of(plan), nullptr) << to_string(plan);
    const std::string code = emit_cpu(plan, program);
    EXPECT_NE(code.find(expected), std::string::npos) << code;
    EXPECT_EQ(code.find("static const Binary"), std::string::npos) << code;
    const RunReport report = run_program(program, cpu_request());
    EXPECT_TRUE(report.check.ok) << report.check.to_string();
  }
}

// The check is not vacuous: the bias of the first column block everywhere, or the epilogue's
// activation dropped, fails it.
TEST(CpuEpilogue, AWrongBiasOrActivationFailsTheCheck) {
  const Program program = compile_text(cases()[0].text, kSizes);
  RunRequest request = cpu_request();
  request.cpu_schedule.blocking = {16, 24, 32};
  request.edit_kernel_source = [](const std::string& code) {
    std::string edited = code;
    const std::size_t at = edited.find(".bias = bias + n0");
    if (at != std::string::npos) edited.replace(at, 17, ".bias = bias");
    return edited;
  };
  EXPECT_FALSE(run_program(program, request).check.ok);

  CpuPlan plan = plan_cpu(program, request.cpu_schedule);
  for (CpuStage& stage : plan.stages)
    for (CpuMatmul& matmul : stage.matmuls)
      if (matmul.epilogue) matmul.epilogue->post.reset();
  RunRequest dropped = cpu_request();
  dropped.cpu_schedule.blocking = {16, 24, 32};
  dropped.kernel_source = emit_cpu(plan, program);
  EXPECT_FALSE(run_program(program, dropped).check.ok);
}

}  // namespace
}  // namespace polyfuse::testing
