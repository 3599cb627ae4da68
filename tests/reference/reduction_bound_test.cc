// ReductionBound (runtime/reference/reduction_bound.h): products, maxima and minima of
// bounded terms, computed in f32 in several orders from values within the terms' bounds,
// stay within the bound; max and min are exact; sums are Reduction's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "runtime/reference/reduction_bound.h"

namespace polyfuse::reference {
namespace {

const double kInf = std::numeric_limits<double>::infinity();

// Terms near 1 in magnitude (so that products of many stay finite) with bounds 0 or
// 2^-4 .. 2^-23 of them, and one f32 value within each bound.
struct Terms {
  std::vector<Bounded> exact;
  std::vector<float> computed;
};

Terms random_terms(std::size_t count, std::mt19937& random) {
  std::uniform_real_distribution<double> magnitude(0.5, 2), unit(-1, 1);
  Terms terms;
  for (std::size_t i = 0; i < count; ++i) {
    const double value = static_cast<float>((random() % 2 ? -1 : 1) * magnitude(random));
    const double bound = random() % 3 == 0 ? 0 : std::fabs(value) * std::ldexp(1.0, -static_cast<int>(random() % 20 + 4));
    terms.exact.push_back({value, bound});
    float computed = static_cast<float>(value + unit(random) * bound);
    if (std::fabs(computed - value) > bound) computed = static_cast<float>(value);
    terms.computed.push_back(computed);
  }
  return terms;
}

float combine(ReductionOp op, float a, float b) {
  switch (op) {
    case ReductionOp::sum: return a + b;
    case ReductionOp::product: return a * b;
    case ReductionOp::max: return std::fmax(a, b);
    case ReductionOp::min: return std::fmin(a, b);
  }
  return 0;
}

float forward(ReductionOp op, float initial, const std::vector<float>& terms) {
  float value = initial;
  for (float t : terms) value = combine(op, value, t);
  return value;
}

float pairwise(ReductionOp op, const float* terms, std::size_t count) {
  if (count == 1) return terms[0];
  const std::size_t half = count / 2;
  return combine(op, pairwise(op, terms, half), pairwise(op, terms + half, count - half));
}

TEST(ReductionBound, EveryOrderOfProductsMaximaAndMinimaIsWithinTheBound) {
  std::mt19937 random(17);
  for (ReductionOp op : {ReductionOp::product, ReductionOp::max, ReductionOp::min, ReductionOp::sum})
    for (std::size_t count : {1u, 2u, 7u, 64u, 300u})
      for (int trial = 0; trial < 20; ++trial) {
        const Terms terms = random_terms(count, random);
        ReductionBound reduction(op, {identity_value(op), 0}, 1);
        for (const Bounded& term : terms.exact) reduction.add(term);
        const Bounded result = reduction.finish();
        const float identity = static_cast<float>(identity_value(op));
        std::vector<float> backward(terms.computed.rbegin(), terms.computed.rend());
        for (float value : {forward(op, identity, terms.computed), forward(op, identity, backward),
                            pairwise(op, terms.computed.data(), count)})
          EXPECT_LE(std::fabs(value - result.value), result.bound)
              << to_string(op) << " of " << count << " terms, trial " << trial;
      }
}

TEST(ReductionBound, MaxAndMinAreExact) {
  ReductionBound max(ReductionOp::max, {-kInf, 0}, 1);
  max.add({1, 0.25});
  max.add({3, 0.5});
  max.add({-2, 1});
  EXPECT_EQ(max.finish().value, 3);
  // within [2.5, 3.5]: -2 +- 1 and 1 +- 0.25 cannot win (the reach 3.5 - 3 rounded up by an ulp)
  EXPECT_GE(max.finish().bound, 0.5);
  EXPECT_NEAR(max.finish().bound, 0.5, 1e-15);
  // a causal mask's -1e30 (its f32 rounding, about 2^76, as the bound) does not widen a row's maximum
  ReductionBound masked(ReductionOp::max, {-kInf, 0}, 1);
  masked.add({0.5, 1e-7});
  masked.add({-1e30, 2e22});
  EXPECT_EQ(masked.finish().value, 0.5);
  EXPECT_GE(masked.finish().bound, 1e-7);
  EXPECT_NEAR(masked.finish().bound, 1e-7, 1e-15);
  ReductionBound min(ReductionOp::min, {0.5, 0}, 1);  // `min=` from the element's value
  min.add({1, 0});
  EXPECT_EQ(min.finish().value, 0.5);
  EXPECT_EQ(min.finish().bound, 0);
}

TEST(ReductionBound, ProductFollowsTheFormula) {
  ReductionBound product(ReductionOp::product, {1, 0}, 1);
  product.add({2, 0.5});
  product.add({-3, 0});
  const Bounded result = product.finish();
  EXPECT_EQ(result.value, -6);
  // Propagated (2.5 * 3 - 2 * 3 = 1.5), then the roundings of two products.
  EXPECT_GT(result.bound, 1.5);
  EXPECT_LT(result.bound, 1.5 + 1e-5);
  // A product that may overflow f32 makes no claim.
  ReductionBound huge(ReductionOp::product, {1, 0}, 1);
  huge.add({1e30, 0});
  huge.add({1e10, 0});
  EXPECT_EQ(huge.finish().bound, kInf);
}

}  // namespace
}  // namespace polyfuse::reference
