// `?:`, comparisons and index values (frontend/condition.h) on the CPU target: a def without
// a matmul runs them as loop nests (codegen/cpu_loop_nest.h), and a def with one as loop-nest
// stages beside its blocked ones, a matmul with them in its own right-hand side (a prologue
// inside the product) too, checked against the exact reference.
#include <gtest/gtest.h>

#include "codegen/cpu_emit.h"
#include "runtime/api/run_program.h"
#include "schedule/cpu_plan.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

RunReport run_cpu(const std::string& text, const SizeBindings& sizes) { return run_text_on_cpu(text, sizes, "conditions.tc"); }

TEST(ConditionsCpu, LoopNestsWithoutAMatmul) {
  const RunReport report = run_cpu(R"(def f(float(N) X, float(N, N) Y) -> (O, R) {
  O(i) = (i < 2 && X(i) > 0) || !(i == 3) ? float(i + 1) : -X(i)
  R(i) +=! r_k < i ? Y(i, r_k)
      : r_k + 1
})", {{"N", 7}});
  EXPECT_TRUE(report.check.ok) << report.check.to_string();
}

TEST(ConditionsCpu, LoopNestStageBesideAMatmul) {
  const RunReport report = run_cpu(R"(def f(f16(M, K) A, f16(K, N) B) -> (O) {
  C(m, n) +=! A(m, k) * B(k, n)
  O(m, n) = m == n ? C(m, n) : 0
})", {{"M", 17}, {"N", 13}, {"K", 9}});
  EXPECT_TRUE(report.check.ok) << report.check.to_string();
}

// Comparisons of index values are integer comparisons in the generated C++ (`j > i`): GCC 12
// at -O3 -march=native on an AVX-512 machine vectorised the f32 form over the collapsed nest
// with wrong lanes (6 of the 45 elements here; found by scripts/random-programs, seed 1733).
TEST(ConditionsCpu, IndexComparisonsAreIntegerComparisons) {
  const std::string text = R"(def tri(f32(M, K) A, f32(K, N) B) -> (C, D) {
  P(i, j) +=! A(i, k) * B(k, j)
  C(i, j) = j > i ? 0 : P(i, j)
  D(i, j) = 2 * j - 1 <= i + 3 ? P(i, j) : -P(i, j) * (j - i)
})";
  for (const SizeBindings& sizes : {SizeBindings{{"M", 15}, {"N", 3}, {"K", 37}}, SizeBindings{{"M", 20}, {"N", 5}, {"K", 8}}}) {
    const Program program = compile_text(text, sizes);
    const std::string code = emit_cpu(program, CpuScheduleOptions{});
    EXPECT_NE(code.find("(j > i) ? 0.0f"), std::string::npos) << code;
    EXPECT_NE(code.find("(((2 * j) - 1) <= (i + 3))"), std::string::npos) << code;
    EXPECT_NE(code.find("(static_cast<float>(j) - static_cast<float>(i))"), std::string::npos) << code;  // a value
    const RunReport report = run_cpu(text, sizes);
    EXPECT_TRUE(report.check.ok) << report.check.to_string();
  }
}

// Zero-padded reads (`where X = 0 outside`) are conditional loads in the C++; GCC 12.2 at -O3
// -march=native if-converted them into masked AVX-512 loads with wrong lanes (random program
// 1479: 63 of 117 elements; tests/programs/found/stencil_padded_rows_cpu.tc), so generated code
// is built with -fno-tree-loop-if-convert under GCC (runtime/cpu/cpu_module.cc). On an AVX-512
// machine this fails without it; elsewhere it holds either way.
TEST(ConditionsCpu, ZeroPaddedReadsOfShiftedRows) {
  const std::string text = R"(def s(f32(N, M) X9) -> (f32(N, M) P10) {
  P10(j, i) = X9(j - 2, i) * 0.5 + X9(j, i) - X9(j + 2, i) where X9 = 0 outside
})";
  for (const SizeBindings& sizes : {SizeBindings{{"N", 13}, {"M", 9}}, SizeBindings{{"N", 40}, {"M", 17}}}) {
    const RunReport report = run_cpu(text, sizes);
    EXPECT_TRUE(report.check.ok) << report.check.to_string();
  }
}

TEST(ConditionsCpu, AMatmulWithThemInItsRightHandSideIsALoopNest) {
  // A prologue with '?:' or an index value inside the product: the BRGEMM takes neither, so
  // that matmul is a loop-nest stage (the plan says why); the statements around it stay blocked.
  const std::string text = R"(def f(f16(M, K) A, f16(K, N) B, f32(N) V) -> (O, P) {
  C(m, n) +=! A(m, k) * B(k, n)
  O(m, n) +=! (A(m, k) > 0 ? A(m, k) : 0.5 * A(m, k)) * B(k, n)
  Q(m, n) +=! (A(m, k) * (k - m)) * B(k, n)
  P(m, n) = relu(O(m, n) + V(n)) + C(m, n) + Q(m, n)
})";
  const RunReport report = run_cpu(text, {{"M", 37}, {"N", 21}, {"K", 19}});
  EXPECT_TRUE(report.check.ok) << report.check.to_string();
  const CpuPlan plan = plan_cpu(compile_text(text, {{"M", 37}, {"N", 21}, {"K", 19}}), CpuScheduleOptions{});
  std::vector<std::string> nests;
  for (const CpuStage& stage : plan.stages) {
    if (!stage.loop_nest) continue;
    nests.push_back(stage.loop_nest->statement);
    EXPECT_EQ(stage.loop_nest->why, "a matmul whose right-hand side has '?:' or an index value: the BRGEMM takes neither");
  }
  EXPECT_EQ(nests, (std::vector<std::string>{"S1", "S2"})) << to_string(plan);
}

}  // namespace
}  // namespace polyfuse::testing
