// General contractions on the CPU target (codegen/cpu_contraction.h): the cases of
// tests/support/contraction_cases.h built, run and checked against the exact reference, in f16
// (and bf16 and f32, which the BRGEMM takes too, for one of them). A def that is one contraction
// (and its epilogues over whole index groups) runs as a BRGEMM over the grouped view after
// packing copies where the layouts need them; the others keep their paths.
#include <gtest/gtest.h>

#include "codegen/cpu_contraction.h"
#include "codegen/cpu_emit.h"
#include "runtime/api/run_program.h"
#include "support/contraction_cases.h"
#include "support/golden.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

class ContractionCpu : public ::testing::TestWithParam<Contraction> {};

TEST_P(ContractionCpu, MatchesTheReference) {
  RunRequest request;
  request.target = Target::cpu;
  request.cpu_schedule.target = default_cpu_target();
  request.repeats = 0;
  // bf16 and f32 for a case with copies of an operand and of the output.
  const bool every_type = GetParam().name == "batch_in_middle";
  for (const std::string type : {"f16", "bf16", "f32"}) {
    if (type != "f16" && !every_type) continue;
    SCOPED_TRACE(type);
    const Program program = compile_text(def_of(GetParam(), type), GetParam().sizes, GetParam().name + ".tc");
    const RunReport report = run_program(program, request);
    EXPECT_TRUE(report.check.ok) << report.check.to_string();
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ContractionCpu, ::testing::ValuesIn(contractions()),
                         [](const ::testing::TestParamInfo<Contraction>& info) { return info.param.name; });

// The examples (contraction_examples), at odd sizes.
TEST(ContractionCpu, ExamplesMatchTheReference) {
  RunRequest request;
  request.target = Target::cpu;
  request.repeats = 0;
  for (const std::string& name : contraction_examples()) {
    const Program program = compile_text(example_text(name), {{"A", 6}, {"B", 5}, {"K", 4}, {"L", 9}, {"C", 24}});
    ASSERT_TRUE(is_cpu_contraction(program)) << name;
    EXPECT_TRUE(run_program(program, request).check.ok) << name;
  }
}

// A general contraction beside statements that are not its epilogues (TC's Kronecker3Full:
// two matmuls, then a contraction over the first factor) runs the def as plain loop nests.
TEST(ContractionCpu, ContractionBesideOtherStatementsRunsAsLoopNests) {
  const Program program = compile_text(
      "def kron(f16(D0, N0) W0, f16(D1, N1) W1, f16(D2, N2) W2, f16(M, N0, N1, N2) X) -> (Y, XW2, XW2W1) {\n"
      "  XW2(m, n0, n1, d2) +=! X(m, n0, n1, r_n2) * W2(d2, r_n2)\n"
      "  XW2W1(m, n0, d1, d2) +=! XW2(m, n0, r_n1, d2) * W1(d1, r_n1)\n"
      "  Y(m, d0, d1, d2) +=! XW2W1(m, r_n0, d1, d2) * W0(d0, r_n0)\n}\n",
      {{"D0", 5}, {"N0", 3}, {"D1", 4}, {"N1", 6}, {"D2", 3}, {"N2", 2}, {"M", 7}});
  EXPECT_FALSE(is_cpu_contraction(program));
  EXPECT_TRUE(has_contraction_beside_other_statements(program));
  RunRequest request;
  request.target = Target::cpu;
  request.repeats = 0;
  const RunReport report = run_program(program, request);
  EXPECT_TRUE(report.check.ok) << report.check.to_string();
}

// Golden schedule and C++ of a contraction with copies of an operand and of the output
// (tests/golden/cpu/contraction_batch_in_middle.*; UPDATE_GOLDEN=1 rewrites them).
TEST(ContractionCpu, GoldenScheduleAndCodeWithCopies) {
  const std::vector<Contraction> cases = contractions();
  const Contraction& c = cases[3];
  ASSERT_EQ(c.name, "batch_in_middle");
  const Program program = compile_text(def_of(c, "f16"), c.sizes, "batch_in_middle.tc");
  EXPECT_TRUE(matches_golden(cpu_contraction_schedule(program, {}), "cpu/contraction_batch_in_middle.schedule"));
  EXPECT_TRUE(matches_golden(emit_cpu(program), "cpu/contraction_batch_in_middle.cpp"));
}

// Which defs take the grouped GEMM: a contraction that is not a matmul as written, then only
// epilogues over whole index groups.
TEST(ContractionCpu, WhichDefsTakeTheGroupedGemm) {
  std::vector<std::string> taken;
  for (const Contraction& c : contractions())
    if (is_cpu_contraction(compile_text(def_of(c, "f16"), c.sizes))) taken.push_back(c.name);
  EXPECT_EQ(taken, (std::vector<std::string>{"tensordot", "transposed", "three_index", "batch_in_middle",
                                             "kronecker3_3", "block_diagonal", "accumulate_permuted",
                                             "tensordot_epilogue"}));
  // A scale by part of a group (b of M = (a, b)) is not an epilogue: the def runs as loop nests.
  EXPECT_FALSE(is_cpu_contraction(compile_text("def f(f16(A, B, K, L) X, f16(K, L, C) Y, f16(B) s) -> (f16(A, B, C) O) {\n"
                                               "  T(a, b, c) +=! X(a, b, k, l) * Y(k, l, c)\n"
                                               "  O(a, b, c) = T(a, b, c) * s(b)\n}\n",
                                               {{"A", 3}, {"B", 4}, {"K", 5}, {"L", 2}, {"C", 6}})));
}

}  // namespace
}  // namespace polyfuse::testing
