// The tolerance model and the check report.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "frontend/frontend.h"
#include "runtime/reference/compare.h"
#include "runtime/reference/element_rounding.h"
#include "runtime/reference/evaluate.h"
#include "runtime/reference/evaluate_exact.h"

namespace polyfuse::reference {
namespace {

TEST(Tolerance, FollowsTheTypeAndTheReductionLength) {
  const Tolerance f16 = tolerance_for(ElementType::f16, 64);
  EXPECT_DOUBLE_EQ(f16.relative, 4 * std::ldexp(1.0, -11));
  EXPECT_DOUBLE_EQ(f16.absolute, std::ldexp(1.0, -11) * 8 + 8 * std::ldexp(1.0, -24) * 64 +
                                     std::ldexp(1.0, -24));
  EXPECT_DOUBLE_EQ(tolerance_for(ElementType::bf16, 1).relative, 4 * std::ldexp(1.0, -8));
  EXPECT_DOUBLE_EQ(tolerance_for(ElementType::f32, 1).relative, std::ldexp(1.0, -18));
  EXPECT_LT(tolerance_for(ElementType::f32, 64).absolute, tolerance_for(ElementType::f32, 4096).absolute);
  EXPECT_LT(tolerance_for(ElementType::f32, 4096).absolute, 3e-3);
  // An f32 output of a program with bf16 tensors: one bf16 ulp of slack, and bf16 factors.
  const Tolerance mixed = tolerance_for(ElementType::f32, 16, ElementType::bf16);
  EXPECT_DOUBLE_EQ(mixed.relative, 2 * std::ldexp(1.0, -24) + 2 * std::ldexp(1.0, -8));
  EXPECT_DOUBLE_EQ(mixed.absolute, std::ldexp(1.0, -8) * 4 + 8 * std::ldexp(1.0, -24) * 16);
}

TEST(Compare, OneUlpOfF16Passes) {
  const float e = 1.5f;
  const float next = f16_bits_to_f32(f32_to_f16_bits(e) + 1);
  const std::vector<float> expected{e, -2.0f, 0.0f};
  const std::vector<float> actual{next, -2.0f, 0.0f};
  const CheckReport report = compare(actual, expected, ElementType::f16, 1, "D");
  EXPECT_TRUE(report.ok) << report.to_string();
  EXPECT_EQ(report.compared, 3);
  EXPECT_DOUBLE_EQ(report.max_abs_err, next - e);
  EXPECT_NEAR(report.max_rel_err, (next - e) / e, 1e-9);
  EXPECT_EQ(report.to_string(), "check: ok (max abs err 9.8e-04, max rel err 6.5e-04)");
}

TEST(Compare, FailuresNameTheFirstElement) {
  const std::vector<float> expected{1, 2, 3, 4, 5, 6};
  const std::vector<float> actual{1, 2, 3, 4, 5.5f, 7};
  const std::vector<std::int64_t> shape{2, 3};
  const CheckReport report = compare(actual, expected, ElementType::f32, 1, "C", shape);
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.failures, 2);
  EXPECT_EQ(report.to_string(),
            "check: FAILED (2 of 6 elements out of tolerance, first C[1, 1] = 5.5 expected 5 "
            "tolerance 1.96099e-05; max abs err 1.0e+00, max rel err 1.7e-01)");
}

TEST(Compare, TheReductionLengthWidensTheAbsoluteTolerance) {
  const std::vector<float> expected{0.0f};
  const std::vector<float> actual{2e-3f};
  EXPECT_FALSE(compare(actual, expected, ElementType::f16, 1).ok);
  EXPECT_TRUE(compare(actual, expected, ElementType::f16, 64).ok);
}

TEST(Compare, NansAndInfinities) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(compare(std::vector<float>{nan, inf}, std::vector<float>{nan, inf}, ElementType::f32, 1).ok);
  EXPECT_FALSE(compare(std::vector<float>{1}, std::vector<float>{nan}, ElementType::f32, 1).ok);
  EXPECT_FALSE(compare(std::vector<float>{-inf}, std::vector<float>{inf}, ElementType::f32, 1).ok);
  EXPECT_FALSE(compare(std::vector<float>{1, 2}, std::vector<float>{1}, ElementType::f32, 1).ok);
}

TEST(Compare, OutputsOfAProgramAgainstTheReference) {
  const Program program = compile_source(SourceFile{"t.tc", R"(
def g(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {
  C(m, n) +=! A(m, k) * B(k, n)
})"}, {{"M", 8}, {"N", 8}, {"K", 32}}).programs.at(0);
  EXPECT_EQ(reduction_length(program), 32);
  TensorData expected = random_tensors(program, 1);
  evaluate(program, expected);
  TensorData actual = expected;
  EXPECT_TRUE(compare_outputs(program, actual, expected).ok);
  actual["C"][9] += 0.25f;  // C[1, 1]
  const CheckReport report = compare_outputs(program, actual, expected);
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.first_failure.substr(0, 7), "C[1, 1]");
  actual.erase("C");
  EXPECT_FALSE(compare_outputs(program, actual, expected).ok);
}

// The check every backend reports: one element moved to twice its bound from the exact
// value fails, named; moved to half its bound, it passes.
TEST(CompareExact, APlantedErrorJustOutsideTheBoundFails) {
  const Program program = compile_source(SourceFile{"t.tc", R"(
def g(f16(M, K) A, f16(K, N) B) -> (f32(M, N) C, f16(M, N) D) {
  C(m, n) +=! A(m, k) * B(k, n)
  D(m, n) = relu(C(m, n))
})"}, {{"M", 8}, {"N", 8}, {"K", 32}}).programs.at(0);
  const TensorData inputs = random_tensors(program, 1);
  const ExactData exact = evaluate_exact(program, inputs);
  for (const char* tensor : {"C", "D"}) {
    const std::size_t element = 8 * 3 + 5;  // [3, 5]
    const double value = exact.at(tensor)[element].value, bound = exact.at(tensor)[element].bound;
    ASSERT_GT(bound, 0);
    for (double sign : {1.0, -1.0}) {
      TensorData actual;
      for (const char* output : {"C", "D"})
        for (const Bounded& element : exact.at(output)) actual[output].push_back(static_cast<float>(element.value));
      actual[tensor][element] = static_cast<float>(value + sign * 2 * bound);
      const CheckReport outside = compare_outputs(program, actual, exact);
      EXPECT_FALSE(outside.ok);
      EXPECT_EQ(outside.failures, 1);
      EXPECT_EQ(outside.first_failure.rfind(std::string(tensor) + "[3, 5] = ", 0), 0u) << outside.first_failure;
      EXPECT_NE(outside.to_string().find("tolerance"), std::string::npos);
      EXPECT_NEAR(outside.max_tolerance_used, 2, 0.01);
      actual[tensor][element] = static_cast<float>(value + sign * 0.5 * bound);
      const CheckReport inside = compare_outputs(program, actual, exact);
      EXPECT_TRUE(inside.ok) << inside.to_string();
      EXPECT_EQ(inside.to_string().rfind("check: ok (max abs err ", 0), 0u);
    }
  }
}

TEST(CompareExact, FailureNamesExactValueAndBound) {
  const ExactTensor exact{{1.0, 0.5}, {2.0, 0.25}, {3.0, 0}};
  const std::vector<std::int64_t> shape{3};
  EXPECT_TRUE(compare(std::vector<float>{1.5f, 1.75f, 3.0f}, exact, "X", shape).ok);
  const CheckReport report = compare(std::vector<float>{1.5f, 2.5f, 3.0f}, exact, "X", shape);
  EXPECT_EQ(report.to_string(),
            "check: FAILED (1 of 3 elements out of tolerance, first X[1] = 2.5 expected 2 tolerance 0.25; "
            "max abs err 5.0e-01, max rel err 5.0e-01)");
  // No claim where the bound is infinite (a possible overflow); NaN still must match.
  const ExactTensor unbounded{{1.0, INFINITY}, {NAN, 0}};
  EXPECT_TRUE(compare(std::vector<float>{1e30f, NAN}, unbounded).ok);
  EXPECT_FALSE(compare(std::vector<float>{1e30f, 1}, unbounded).ok);
}

// Elements the check cannot judge are counted and said: a program whose results are all NaN
// (log of the random inputs in [-1, 1)) does not read as checked.
TEST(CompareExact, ElementsNotJudgedAreCountedAndSaid) {
  const ExactTensor exact{{1.0, INFINITY}, {NAN, 0}, {NAN, 0}, {2.0, 0.5}};
  const CheckReport report = compare(std::vector<float>{7.0f, NAN, NAN, 2.25f}, exact);
  EXPECT_TRUE(report.ok);
  EXPECT_EQ(report.compared, 4);
  EXPECT_EQ(report.nan_in_both, 2);
  EXPECT_EQ(report.unbounded, 1);
  EXPECT_EQ(report.to_string(),
            "check: ok (max abs err 2.5e-01, max rel err 1.2e-01; 3 of 4 elements not checked: 2 NaN as in the "
            "reference, 1 without an error bound (a value may leave a function's domain or overflow))");
  CheckReport merged = report;
  merged.merge(report);
  EXPECT_EQ(merged.unchecked(), 6);
  const CheckReport judged = compare(std::vector<float>{2.25f}, ExactTensor{{2.0, 0.5}});
  EXPECT_EQ(judged.unchecked(), 0);
  EXPECT_EQ(judged.to_string(), "check: ok (max abs err 2.5e-01, max rel err 1.2e-01)");
}

TEST(Compare, ReductionLengthOfABatchReduce) {
  const Program program = compile_source(SourceFile{"t.tc", R"(
def brgemm(f32(R, M, K) A, f32(R, K, N) B) -> (f32(M, N) C) {
  C(m, n) +=! A(r, m, k) * B(r, k, n)
})"}, {{"R", 3}, {"M", 2}, {"N", 2}, {"K", 5}}).programs.at(0);
  EXPECT_EQ(reduction_length(program), 15);
}

}  // namespace
}  // namespace polyfuse::reference
