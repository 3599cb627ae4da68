// In-place updates on the CPU target (schedule/cpu_in_place.h): Tensor Comprehensions' epilogues,
// `O = O + bias; O = fmax(O, 0)` after `O +=! A * B`, join the matmul's stage, compose into one
// statement and become the BRGEMM's epilogue, as polyfuse's own `D = relu(C + bias)` does; which
// updates compose (f32, one read of the element) and which stay passes; a stage that reads the
// tensor elsewhere is not joined (a planted hazard: blocks of a transposed read); every program
// against the reference. Golden files: tests/golden/cpu/tc_fcrelu.{schedule,cpp}.
#include <gtest/gtest.h>

#include "codegen/cpu_emit.h"
#include "schedule/cpu_plan.h"
#include "support/golden.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

// Tensor Comprehensions' fcrelu (tc/library), as tests/tc_corpus/library_fcrelu.tc has it.
const char* kFcrelu =
    "def fcrelu(float(B,M) I, float(N,M) W1, float(N) B1) -> (O1) {\n"
    "    O1(b, n) +=! I(b, m) * W1(n, m)\n"
    "    O1(b, n) = O1(b, n) + B1(n)\n"
    "    O1(b, n) = fmax(O1(b, n), 0)\n"
    "}\n";

std::size_t pointwise_count(const CpuPlan& plan) {
  std::size_t count = 0;
  for (const CpuStage& stage : plan.stages) count += stage.pointwise.size();
  return count;
}

const CpuEpilogue* epilogue_of(const CpuPlan& plan) {
  for (const CpuStage& stage : plan.stages)
    for (const CpuMatmul& matmul : stage.matmuls)
      if (matmul.epilogue) return &*matmul.epilogue;
  return nullptr;
}

// Both the small blocks (several row and column blocks, a k tail) and the default ones.
void expect_runs(const Program& program) {
  for (bool small : {true, false}) {
    RunRequest request = cpu_run_request(5);
    if (small) request.cpu_schedule.blocking = {16, 24, 32};
    const RunReport report = run_program(program, request);
    EXPECT_TRUE(report.check.ok) << (small ? "small blocks: " : "") << report.check.to_string();
  }
}

TEST(CpuInPlace, TcFcreluIsOneStageFinishedByTheBrgemm) {
  const Program program = compile_text(kFcrelu, {{"B", 64}, {"M", 64}, {"N", 64}}, "fcrelu.tc");
  CpuScheduleOptions options;
  options.min_parallel_flops = 0;
  const CpuPlan plan = plan_cpu(program, options);
  ASSERT_EQ(plan.stages.size(), 1u) << to_string(plan);
  ASSERT_EQ(pointwise_count(plan), 1u) << to_string(plan);
  const CpuEpilogue* epilogue = epilogue_of(plan);
  ASSERT_NE(epilogue, nullptr) << to_string(plan);
  EXPECT_EQ(epilogue->statement, "S1_S2");
  EXPECT_EQ(epilogue->post, Function::relu);  // fmax(x, 0)
  ASSERT_TRUE(epilogue->bias.has_value());
  EXPECT_EQ(epilogue->bias->tensor, "B1");
  EXPECT_TRUE(matches_golden(to_string(plan), "cpu/tc_fcrelu.schedule"));
  EXPECT_TRUE(matches_golden(emit_cpu(plan, program), "cpu/tc_fcrelu.cpp"));
  expect_runs(compile_text(kFcrelu, {{"B", 45}, {"M", 40}, {"N", 50}}, "fcrelu.tc"));
}

struct Case {
  const char* what;
  std::string text;
  std::size_t stages, pointwise;  // after composition
  const char* epilogue;           // the statement the BRGEMM finishes, or ""
};

std::vector<Case> cases() {
  const std::string gemm = "def g(f32(M, K) A, f32(K, N) B, f32(N) bias, f32(M, N) R) -> (f32(M, N) O, f32(M, N) P) {\n"
                           "  O(m, n) +=! A(m, k) * B(k, n)\n";
  return {
      {"a residual, then tanh", gemm + "  O(m, n) = O(m, n) + R(m, n)\n  O(m, n) = tanh(O(m, n))\n  P(m, n) = R(m, n)\n}\n",
       1, 2, "S1_S2"},
      {"three updates, a scale among them: composed, a pass",
       gemm + "  O(m, n) = O(m, n) + bias(n)\n  O(m, n) = O(m, n) * 0.5\n  O(m, n) = fmax(O(m, n), 0)\n"
              "  P(m, n) = R(m, n)\n}\n",
       1, 2, ""},
      {"a read between updates: the first is the epilogue, max(0, x) is not relu",
       gemm + "  O(m, n) = O(m, n) + bias(n)\n  P(m, n) = O(m, n) * 2.0\n  O(m, n) = fmax(0, O(m, n))\n}\n", 1, 3, "S1"},
      {"two reads of the element: not composed",
       gemm + "  O(m, n) = O(m, n) + bias(n)\n  O(m, n) = O(m, n) * sigmoid(O(m, n))\n  P(m, n) = R(m, n)\n}\n", 1, 3,
       "S1"},
      {"a pointwise chain without a matmul",
       "def g(f32(M, N) A) -> (f32(M, N) O) {\n  O(m, n) = A(m, n) + 1.0\n  O(m, n) = O(m, n) * 2.0\n"
       "  O(m, n) = exp(O(m, n))\n}\n",
       1, 1, ""},
      {"f16: each update rounds, not composed",
       "def g(f16(M, K) A, f16(K, N) B, f16(N) bias) -> (f16(M, N) O) {\n  O(m, n) +=! A(m, k) * B(k, n)\n"
       "  O(m, n) = O(m, n) + bias(n)\n  O(m, n) = fmax(O(m, n), 0)\n}\n",
       1, 2, ""},
      {"a transposed result",
       "def g(f32(M, K) A, f32(K, N) B, f32(M) bias) -> (f32(N, M) O) {\n  O(n, m) +=! A(m, k) * B(k, n)\n"
       "  O(n, m) = O(n, m) + bias(m)\n  O(n, m) = gelu(O(n, m))\n}\n",
       1, 1, "S1_S2"},
      {"a temporary updated in place, read after",
       "def g(f32(M, K) A, f32(K, N) B, f32(N) bias) -> (f32(M, N) D) {\n  C(m, n) +=! A(m, k) * B(k, n)\n"
       "  C(m, n) = C(m, n) + bias(n)\n  C(m, n) = fmax(C(m, n), 0)\n  D(m, n) = C(m, n) * 3.0\n}\n",
       1, 2, "S1_S2"},
  };
}

TEST(CpuInPlace, WhatComposesAndWhatTheBrgemmFinishes) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.what);
    const Program program = compile_text(c.text, {{"M", 45}, {"N", 50}, {"K", 40}});
    const CpuPlan plan = plan_cpu(program);
    EXPECT_EQ(plan.stages.size(), c.stages) << to_string(plan);
    EXPECT_EQ(pointwise_count(plan), c.pointwise) << to_string(plan);
    const CpuEpilogue* epilogue = epilogue_of(plan);
    EXPECT_EQ(epilogue ? epilogue->statement : "", c.epilogue) << to_string(plan);
    expect_runs(program);
  }
}

// TC's convolution with its bias and ReLU as updates: the last tap's call finishes the block.
TEST(CpuInPlace, ConvolutionUpdatedInPlace) {
  const std::string text =
      "def conv(float(N, H, W, C) I, float(F, R, S, C) Wt, float(F) B) -> (O) {\n"
      "  O(n, h, w, f) +=! I(n, h + r, w + s, c) * Wt(f, r, s, c)\n"
      "  O(n, h, w, f) = O(n, h, w, f) + B(f)\n"
      "  O(n, h, w, f) = fmax(O(n, h, w, f), 0)\n}\n";
  const Program program = compile_text(text, {{"N", 2}, {"H", 9}, {"W", 11}, {"C", 5}, {"F", 7}, {"R", 3}, {"S", 3}});
  const CpuPlan plan = plan_cpu(program);
  ASSERT_NE(epilogue_of(plan), nullptr) << to_string(plan);
  EXPECT_EQ(pointwise_count(plan), 1u) << to_string(plan);
  expect_runs(program);
}

// An update after a statement that reads the tensor at another element (its transpose) is a
// stage of its own: in the same blocks, block (i, j) would update O(i, j) before block (j, i)
// reads it. Square, several blocks each way, so a wrong join would read updated values.
TEST(CpuInPlace, AnUpdateAfterAReadElsewhereIsNotJoined) {
  const std::string text =
      "def g(f32(M, K) A, f32(K, N) B) -> (f32(M, N) O, f32(N, M) P) {\n  O(m, n) +=! A(m, k) * B(k, n)\n"
      "  P(n, m) = O(m, n) * 2.0\n  O(m, n) = O(m, n) + 1.0\n}\n";
  const Program program = compile_text(text, {{"M", 48}, {"N", 48}, {"K", 20}});
  for (const CpuStage& stage : plan_cpu(program).stages)
    for (const CpuPointwise& pointwise : stage.pointwise)
      if (pointwise.write.tensor == "O") {
        EXPECT_TRUE(std::none_of(stage.pointwise.begin(), stage.pointwise.end(),
                                 [](const CpuPointwise& other) { return other.write.tensor == "P"; }));
      }
  expect_runs(program);
}

}  // namespace
}  // namespace polyfuse::testing
