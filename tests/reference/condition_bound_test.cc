// The rules of runtime/reference/condition_bound.h: a condition is certain only when every
// value within the operands' bounds decides it alike, and `?:` on an uncertain condition
// covers the other branch's value.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/reference/condition_bound.h"

namespace polyfuse::reference {
namespace {

TEST(ConditionBound, ComparisonsAreCertainOnlyOutsideTheBounds) {
  // 1 < 2 with bounds 0.4 + 0.4 < 1: certain; with 0.6 + 0.6 >= 1: either.
  EXPECT_EQ(compare(Comparison::lt, {1, 0.4}, {2, 0.4}).bound, 0);
  EXPECT_EQ(compare(Comparison::lt, {1, 0.4}, {2, 0.4}).value, 1);
  EXPECT_EQ(compare(Comparison::lt, {1, 0.6}, {2, 0.6}).bound, 1);
  EXPECT_EQ(compare(Comparison::ge, {1, 0.6}, {2, 0.6}).value, 0);
  // Exact operands decide every comparison, equality included.
  EXPECT_EQ(compare(Comparison::eq, {3, 0}, {3, 0}).value, 1);
  EXPECT_EQ(compare(Comparison::eq, {3, 0}, {3, 0}).bound, 0);
  EXPECT_EQ(compare(Comparison::le, {3, 0}, {3, 0}).value, 1);
  EXPECT_EQ(compare(Comparison::lt, {3, 0}, {3, 0}).bound, 0);
  // Equality of inexact values is certain only when they are apart by more than the bounds.
  EXPECT_EQ(compare(Comparison::eq, {3, 1e-6}, {3, 0}).bound, 1);
  EXPECT_EQ(compare(Comparison::ne, {3, 1e-6}, {4, 0}).bound, 0);
  // NaN: IEEE's answer, certain.
  const Bounded nan{std::nan(""), 0};
  EXPECT_EQ(compare(Comparison::lt, nan, {1, 0}).value, 0);
  EXPECT_EQ(compare(Comparison::ne, nan, {1, 0}).value, 1);
  EXPECT_EQ(compare(Comparison::ne, nan, {1, 0}).bound, 0);
}

TEST(ConditionBound, LogicalOperatorsKeepCertainAnswers) {
  const Bounded yes{1, 0}, no{0, 0}, maybe_yes{1, 1}, maybe_no{0, 1};
  EXPECT_EQ(logical(ExprKind::logical_and, no, maybe_yes).bound, 0);  // false && anything
  EXPECT_EQ(logical(ExprKind::logical_and, yes, maybe_yes).bound, 1);
  EXPECT_EQ(logical(ExprKind::logical_or, maybe_no, yes).value, 1);    // anything || true
  EXPECT_EQ(logical(ExprKind::logical_or, maybe_no, yes).bound, 0);
  EXPECT_EQ(logical(ExprKind::logical_not, maybe_no, {}).value, 1);
  EXPECT_EQ(logical(ExprKind::logical_not, maybe_no, {}).bound, 1);
}

TEST(ConditionBound, SelectCoversTheOtherBranchWhenUncertain) {
  EXPECT_EQ(select({1, 0}, {5, 0.1}, {9, 0.2}).value, 5);
  EXPECT_EQ(select({1, 0}, {5, 0.1}, {9, 0.2}).bound, 0.1);
  const Bounded either = select({1, 1}, {5, 0.1}, {9, 0.2});
  EXPECT_EQ(either.value, 5);
  EXPECT_DOUBLE_EQ(either.bound, 4.2);  // |5 - 9| + 0.2
  EXPECT_DOUBLE_EQ(select({0, 1}, {5, 0.1}, {9, 0.2}).bound, 4.1);
}

}  // namespace
}  // namespace polyfuse::reference
