// Contractions grouped as GEMMs (schedule/contraction_to_gemm.h): the groups, layouts and
// permutation copies of each case of tests/support/contraction_cases.h, what is not a GEMM and
// why, and golden plans (`--emit=plan`) with and without copies and for f32.
// UPDATE_GOLDEN=1 rewrites tests/golden/plan/contraction_*.plan.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "frontend/frontend.h"
#include "schedule/contraction_to_gemm.h"
#include "schedule/program_plan.h"
#include "support/contraction_cases.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

using testing::Contraction;
using testing::contractions;
using testing::def_of;

Program compile(const std::string& text, const SizeBindings& sizes = {}) {
  return compile_source(SourceFile{"c.tc", text}, sizes).programs.front();
}

// "M=(..) N=(..) K=(..) batch=(..); A copy, B view (column-major), O copy".
std::string summary(const ContractionGrouping& g) {
  if (!g.is_gemm) return "not a GEMM: " + g.why_not;
  const auto layout = [](bool permuted, bool column) {
    return permuted ? "copy" : column ? "view (column-major)" : "view";
  };
  return fmt::format("{}; A {}, B {}, O {}", g.groups(), layout(g.a_permuted, g.a_column_major),
                     layout(g.b_permuted, g.b_column_major), g.output_permuted ? "copy" : "view");
}

TEST(ContractionToGemm, GroupsEveryCase) {
  std::string text;
  for (const Contraction& c : contractions()) {
    const Program program = compile(def_of(c, "f16"), c.sizes);
    text += fmt::format("{}: {}\n", c.name, summary(group_contraction(program, program.statements.front())));
  }
  EXPECT_EQ(text,
            "tensordot: M=(a, b) N=(c) K=(k, l) batch=(); A view, B view, O view\n"
            "transposed: M=(a, b) N=(c) K=(k, l) batch=(); A view (column-major), B view (column-major), O view\n"
            "three_index: M=(i) N=(j) K=(p, q, r) batch=(); A view, B copy, O view\n"
            "batch_in_middle: M=(a) N=(c) K=(k) batch=(b); A copy, B view (column-major), O copy\n"
            "kronecker3_1: M=(m, n0, n1) N=(d2) K=(n2) batch=(); A view, B view (column-major), O view\n"
            "kronecker3_2: M=(m, n0, d2) N=(d1) K=(n1) batch=(); A copy, B view (column-major), O copy\n"
            "kronecker3_3: M=(m, d1, d2) N=(d0) K=(n0) batch=(); A copy, B view (column-major), O copy\n"
            "block_diagonal: M=(m) N=(j) K=(i) batch=(g); A copy, B view, O copy\n"
            "batch_reduce: M=(m) N=(n) K=(r, k) batch=(); A copy, B view, O view\n"
            "accumulate_permuted: M=(c) N=(a) K=(k) batch=(b); A copy, B view (column-major), O copy\n"
            "tensordot_epilogue: M=(a, b) N=(c) K=(k, l) batch=(); A view, B view, O view\n"
            "epilogue: M=(a, b) N=(c) K=(k) batch=(); A copy, B view, O view\n");
}

TEST(ContractionToGemm, SaysWhatIsNotAGemm) {
  const auto why = [](const std::string& text) {
    const Program program = compile(text);
    return summary(group_contraction(program, program.statements.front()));
  };
  EXPECT_EQ(why("def f(f16(M, K) X, f16(K) v) -> (f32(M) y) {\n  y(m) +=! X(m, k) * v(k)\n}\n"),
            "not a GEMM: a GEMM needs free indices in both factors and a contracted one (M=(m) N=() K=(k) batch=())");
  EXPECT_EQ(why("def f(f16(M, K) X, f16(K, N) Y) -> (f32(M, N) O) {\n  O(m, n) max=! X(m, k) * Y(k, n)\n}\n"),
            "not a GEMM: not a sum");
  EXPECT_EQ(why("def f(f16(M, K) X, f16(N) Y) -> (f32(M, N) O) {\n  O(m, n) +=! X(m, k) * Y(n)\n}\n"),
            "not a GEMM: k is summed over X alone");
  EXPECT_EQ(why("def f(f16(M, K) X) -> (f32(M, M) G) {\n  G(i, j) +=! X(i, k) * X(j, k)\n}\n"),
            "not a GEMM: both factors read X");
  EXPECT_EQ(why("def f(f16(M, K) X, f16(K, N) Y) -> (f32(M, N) O) {\n  O(m, n) +=! relu(X(m, k)) * Y(k, n)\n}\n"),
            "not a GEMM: its right-hand side is not a product of two tensor reads");
}

// Golden plans: views only (one kernel), copies of an operand and of the output, f32, and
// epilogues in the GEMM's kernel.
TEST(ContractionToGemm, GoldenPlans) {
  const std::vector<Contraction> cases = contractions();
  for (const auto& [name, type] : {std::pair{"tensordot", "f16"}, std::pair{"batch_in_middle", "bf16"},
                                   std::pair{"tensordot", "f32"}, std::pair{"tensordot_epilogue", "f16"}}) {
    const std::string wanted = name;  // (clang 14: a lambda cannot capture a structured binding)
    const Contraction& c =
        *std::find_if(cases.begin(), cases.end(), [&](const Contraction& x) { return x.name == wanted; });
    const Program program = compile(def_of(c, type), c.sizes);
    const std::string plan = to_string(plan_program(program, recognize_idioms(program)), program);
    EXPECT_TRUE(polyfuse::testing::matches_golden(plan, fmt::format("plan/contraction_{}_{}.plan", name, type)));
  }
}

// An epilogue is taken only over whole groups: a scale by b alone (part of M = (a, b)) is a
// pointwise kernel of its own, and the plan says why.
TEST(ContractionToGemm, EpilogueOverPartOfAGroupIsAKernelOfItsOwn) {
  const Program program = compile("def f(f16(A, B, K, L) X, f16(K, L, C) Y, f16(B) s) -> (f16(A, B, C) O) {\n"
                                  "  T(a, b, c) +=! X(a, b, k, l) * Y(k, l, c)\n  O(a, b, c) = T(a, b, c) * s(b)\n}\n",
                                  {{"A", 3}, {"B", 4}, {"K", 5}, {"L", 2}, {"C", 6}});
  const ProgramPlan plan = plan_program(program, recognize_idioms(program));
  ASSERT_EQ(plan.kernels.size(), 2u) << to_string(plan, program);
  EXPECT_EQ(plan.kernels[0].statements, std::vector<std::string>{"S0"});
  EXPECT_NE(plan.kernels[0].cut.find("whose every access is whole index groups"), std::string::npos);
  ASSERT_NE(plan.find_temporary("T"), nullptr);
}

}  // namespace
}  // namespace polyfuse
