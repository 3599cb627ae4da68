// A matmul's terms times values along the sum (frontend/matmul_factors.h): a scaled GEMM and
// attention's `e * V / z` become the matmul and a pointwise statement after it (the GPU plan's
// fused epilogue, the CPU target's BRGEMM), run against the reference on the CPU target and the
// emulator at odd sizes; sums outside the rule (each broken once) stay as written.
#include <gtest/gtest.h>

#include "frontend/idioms.h"
#include "frontend/ir_printer.h"
#include "schedule/program_plan.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

void expect_runs_on_both_targets(const Program& program) {
  const RunReport cpu = run_program(program, cpu_run_request(13));
  EXPECT_TRUE(cpu.check.ok) << "cpu: " << cpu.check.to_string();
  RunRequest emu;
  emu.seed = 13;
  emu.repeats = 0;
  const RunReport gpu = run_program(program, emu);
  EXPECT_TRUE(gpu.check.ok) << "emu: " << gpu.check.to_string();
  EXPECT_EQ(cpu.check.unchecked() + gpu.check.unchecked(), 0);
}

TEST(MatmulFactors, AScaledGemmIsTheGemmThenItsScaleInOneKernel) {
  const Program program = compile_text(R"(def scaled(f16(M, K) A, f16(K, N) B, f32(M) s) -> (f16(M, N) C) {
  C(m, n) +=! A(m, k) * B(k, n) * 0.125 / s(m)
})",
                                       {{"M", 37}, {"N", 45}, {"K", 19}}, "scaled.tc");
  EXPECT_EQ(statement_sources(program, true), (std::vector<std::string>{"S0: C_sum(m, n) +=! A(m, k) * B(k, n)",
                                                        "S0_scale: C(m, n) = C_sum(m, n) * 0.125 / s(m)"}));
  EXPECT_EQ(program.find_tensor("C_sum")->type, ElementType::f32);
  const Idioms idioms = recognize_idioms(program);
  EXPECT_EQ(idioms.find("S0")->kind, IdiomKind::matmul);
  const ProgramPlan plan = plan_program(program, recognize_idioms(program));
  ASSERT_EQ(plan.kernels.size(), 1u) << to_string(plan, program);
  expect_runs_on_both_targets(program);
}

TEST(MatmulFactors, AttentionsScaledScoresAndNormalisedOutputAreMatmuls) {
  const Program program = compile_text(R"(def attn(f16(B, S, D) Q, f16(B, T, D) K, f16(B, T, D) V) -> (f16(B, S, D) O) {
  L(b, s, t) +=! Q(b, s, d) * K(b, t, d) * 0.125
  mx(b, s) max=! L(b, s, t)
  e(b, s, t) = exp(L(b, s, t) - mx(b, s))
  z(b, s) +=! e(b, s, t)
  O(b, s, d) +=! e(b, s, t) * V(b, t, d) / z(b, s)
})",
                                       {{"B", 2}, {"S", 21}, {"T", 35}, {"D", 24}}, "attn.tc");
  const std::vector<std::string> lines = statement_sources(program, true);
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[0], "S0: L_sum(b, s, t) +=! Q(b, s, d) * K(b, t, d)");
  EXPECT_EQ(lines[1], "S0_scale: L(b, s, t) = L_sum(b, s, t) * 0.125");
  EXPECT_EQ(lines[5], "S4: O_sum(b, s, d) +=! e(b, s, t) * V(b, t, d)");
  EXPECT_EQ(lines[6], "S4_scale: O(b, s, d) = O_sum(b, s, d) / z(b, s)");
  const Idioms idioms = recognize_idioms(program);
  EXPECT_EQ(idioms.find("S0")->kind, IdiomKind::matmul);
  EXPECT_EQ(idioms.find("S4")->kind, IdiomKind::matmul);
  expect_runs_on_both_targets(program);
}

// A contraction that is not a matmul as written (the batch index between the rows and the head's
// column: FlashAttention's (B, S, H, D) tensors): its scale and its division are split off too, so
// that the contraction's f32 factors may be rounded as a matmul's (attention's one kernel takes it).
TEST(MatmulFactors, AScaledContractionIsTheContractionThenItsScale) {
  const Program program = compile_text(R"(def bshd(f16(B, S, H, D) Q, f16(B, T, H, D) K, f16(B, T, H, D) V) -> (f16(B, S, H, D) O) {
  L(b, h, s, t) +=! Q(b, s, h, d) * K(b, t, h, d) * 0.125
  mx(b, h, s) max=! L(b, h, s, t)
  e(b, h, s, t) = exp(L(b, h, s, t) - mx(b, h, s))
  z(b, h, s) +=! e(b, h, s, t)
  O(b, s, h, d) +=! e(b, h, s, t) * V(b, t, h, d) / z(b, h, s)
})",
                                       {{"B", 2}, {"H", 2}, {"S", 21}, {"T", 35}, {"D", 24}}, "bshd.tc");
  EXPECT_EQ(statement_sources(program, true),
            (std::vector<std::string>{"S0: L_sum(b, h, s, t) +=! Q(b, s, h, d) * K(b, t, h, d)",
                                      "S0_scale: L(b, h, s, t) = L_sum(b, h, s, t) * 0.125",
                                      "S1: mx(b, h, s) max=! L(b, h, s, t)",
                                      "S2: e(b, h, s, t) = exp(L(b, h, s, t) - mx(b, h, s))",
                                      "S3: z(b, h, s) +=! e(b, h, s, t)",
                                      "S4: O_sum(b, s, h, d) +=! e(b, h, s, t) * V(b, t, h, d)",
                                      "S4_scale: O(b, s, h, d) = O_sum(b, s, h, d) / z(b, h, s)"}));
  EXPECT_NE(recognize_idioms(program).find("S4")->kind, IdiomKind::matmul);
  expect_runs_on_both_targets(program);
}

// Each rule broken once: the statement stays as written (and still runs right).
TEST(MatmulFactors, SumsOutsideTheRuleStay) {
  struct Case {
    const char* why;
    const char* text;
  };
  const Case cases[] = {
      {"+= (the result's old value is added)",
       "def f(f32(M, K) A, f32(K, N) B, f32(M, N) C0) -> (f32(M, N) C) {\n  C(m, n) = C0(m, n)\n"
       "  C(m, n) += A(m, k) * B(k, n) * 0.5\n}"},
      {"a max", "def f(f32(M, K) A, f32(K, N) B) -> (f32(M, N) C) {\n  C(m, n) max=! A(m, k) * B(k, n) * 0.5\n}"},
      {"a divisor along the sum",
       "def f(f32(M, K) A, f32(K, N) B, f32(K) g) -> (f32(M, N) C) {\n  C(m, n) +=! A(m, k) * B(k, n) / g(k)\n}"},
      {"no factor along the sum", "def f(f32(M, K) A, f32(K, N) B) -> (f32(M, N) C) {\n  C(m, n) +=! A(m, k) * B(k, n)\n}"},
      {"one term left (a row sum)", "def f(f32(M, N) X) -> (f32(M) y) {\n  y(m) +=! X(m, n) * 2\n}"},
      {"the rest not a matmul",
       "def f(f32(M, K) A, f32(M, K) B) -> (f32(M) y) {\n  y(m) +=! A(m, k) * B(m, k) * 0.5\n}"},
      {"the rest not a matmul (a shifted read)",
       "def f(f32(M, K) A, f32(K, N) B) -> (f32(M, N) C) {\n  C(m, n) +=! A(m, k - 1) * B(k, n) * 0.5 where A = 0 outside\n}"},
      {"a matmul as written (a prologue A * 0.3 on A)",
       "def f(f16(M, K) A, f16(K, N) B) -> (f32(M, N) C) {\n  C(m, n) +=! (A(m, k) * 0.3) * B(k, n)\n}"},
      {"the rest not a contraction (j summed over A alone)",
       "def f(f32(M, K, J) A, f32(K, N) B) -> (f32(M, N) C) {\n  C(m, n) +=! A(m, k, j) * B(k, n) * 0.5\n}"},
      {"the rest not a contraction (no free index in B)",
       "def f(f32(M, K) A, f32(M, K) B) -> (f32(M) y) {\n  y(m) +=! A(m, k) * B(m, k) / 3\n}"},
      {"an index value", "def f(f32(M, K) A, f32(K, N) B) -> (f32(M, N) C) {\n  C(m, n) +=! A(m, k) * B(k, n) * m\n}"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.why);
    const Program program = compile_text(c.text, {{"M", 9}, {"N", 11}, {"K", 7}, {"J", 3}}, "stays.tc");
    for (const Statement& statement : program.statements)
      EXPECT_EQ(statement.id.find("_scale"), std::string::npos) << print_statement_source(statement);
    const RunReport report = run_program(program, cpu_run_request(5));
    EXPECT_TRUE(report.check.ok) << report.check.to_string();
  }
}

}  // namespace
}  // namespace polyfuse::testing
