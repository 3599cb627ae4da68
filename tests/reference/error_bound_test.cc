// The error-bound rules (runtime/reference/error_bound.h) against real f32 arithmetic:
// every rule holds for values a backend computes (kernels/cpu's scalar definitions, the
// same formulas as the GPU helpers), every summation order stays within the reduction
// bound (including an emulated tensor core that truncates), and the rules that give an
// exact answer or no claim do so.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "polyfuse/cpu/elementwise.h"
#include "runtime/reference/element_rounding.h"
#include "runtime/reference/error_bound.h"

namespace polyfuse::reference {
namespace {

const double kU32 = std::ldexp(1.0, -24);
const double kInf = std::numeric_limits<double>::infinity();

TEST(ErrorBound, StoringRoundsOnceToNearest) {
  const Bounded third = stored_as(ElementType::f16, {1.0 / 3, 0});
  EXPECT_GE(third.bound, std::fabs(round_to(ElementType::f16, 1.0f / 3) - 1.0 / 3));
  EXPECT_NEAR(third.bound, std::ldexp(1.0, -11) / 3 + std::ldexp(1.0, -24), 1e-12);
  EXPECT_EQ(stored_as(ElementType::f32, {1.0 / 3, 1e-9}).bound, 1e-9);  // already an f32 value
  // A bound carried in widens with the rounding of the largest value it allows.
  const Bounded carried = stored_as(ElementType::bf16, {2, 0.5});
  EXPECT_DOUBLE_EQ(carried.bound, 0.5 + std::ldexp(1.0, -8) * 2.5 + std::ldexp(1.0, -126));
}

// TF32 (cvt.rna: 10 explicit mantissa bits, ties away from zero) of an f32 value, as the GPU
// path rounds an f32 matmul's operands.
float tf32(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  u = (u + 0x1000u) & ~0x1fffu;
  std::memcpy(&x, &u, 4);
  return x;
}

// A product of f32 factors as each `f32_matmul` mode computes it stays within the product of
// the mode's factor bounds; TF32's products break the 3xTF32 bound, 3xTF32's the exact one.
TEST(ErrorBound, F32MatmulFactorsInEachMode) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-4.f, 4.f);
  int tf32_beyond_3x = 0, x3_beyond_exact = 0;
  for (int i = 0; i < 2000; ++i) {
    const float x = dist(rng), y = dist(rng);
    const double exact = double(x) * y;
    const double tf32_product = double(tf32(x)) * tf32(y);  // exact in f32: 11 x 11 bits
    const float xb = tf32(x), yb = tf32(y), xs = tf32(x - xb), ys = tf32(y - yb);
    const double x3_product = double(xs) * yb + double(xb) * ys + double(xb) * yb;
    const auto bound = [&](F32Matmul mode) {
      return f32_matmul_factor(mode, {x, 0}).bound * std::fabs(y) + f32_matmul_factor(mode, {y, 0}).bound * std::fabs(x) +
             f32_matmul_factor(mode, {x, 0}).bound * f32_matmul_factor(mode, {y, 0}).bound;
    };
    EXPECT_LE(std::fabs(tf32_product - exact), bound(F32Matmul::tf32)) << x << " * " << y;
    EXPECT_LE(std::fabs(x3_product - exact), bound(F32Matmul::x3tf32)) << x << " * " << y;
    tf32_beyond_3x += std::fabs(tf32_product - exact) > bound(F32Matmul::x3tf32);
    x3_beyond_exact += std::fabs(x3_product - exact) > bound(F32Matmul::f32);
  }
  EXPECT_GT(tf32_beyond_3x, 1000);
  EXPECT_GT(x3_beyond_exact, 100);
  EXPECT_EQ(f32_matmul_factor(F32Matmul::f32, {3, 0.5}).bound, 0.5);
  EXPECT_EQ(f32_matmul_summation_factor(F32Matmul::tf32), kTensorCoreSummationFactor);
  EXPECT_EQ(f32_matmul_summation_factor(F32Matmul::x3tf32), 3 * kTensorCoreSummationFactor);
}

TEST(ErrorBound, LiteralsAreRoundedToF32) {
  EXPECT_EQ(literal(0.5).bound, 0);
  EXPECT_DOUBLE_EQ(literal(0.1).bound, std::fabs(0.1 - static_cast<double>(0.1f)));
  EXPECT_EQ(literal(1e40).bound, kInf);  // an f32 infinity: no claim
}

TEST(ErrorBound, ProductAndQuotientRules) {
  const Bounded product = binary(BinaryOp::mul, {2, 0.01}, {-3, 0.02});
  EXPECT_EQ(product.value, -6);
  const double propagated = 2 * 0.02 + 3 * 0.01 + 0.01 * 0.02;
  EXPECT_GT(product.bound, propagated);
  EXPECT_LT(product.bound, propagated + 1e-6);
  // An exact factor adds nothing however large the other one's bound: 0 * inf is 0 here.
  EXPECT_EQ(binary(BinaryOp::mul, {0, 0}, {1e30, 1e20}).value, 0);
  // Dividing by a value that may be zero: no claim; by an exact zero: exactly infinite.
  EXPECT_EQ(binary(BinaryOp::div, {1, 0}, {1e-3, 2e-3}).bound, kInf);
  const Bounded infinite = binary(BinaryOp::div, {1, 0}, {0, 0});
  EXPECT_EQ(infinite.value, kInf);
  EXPECT_EQ(infinite.bound, 0);
}

TEST(ErrorBound, FunctionsUseTheImageOfTheInterval) {
  // relu of a certainly negative value is exactly zero on every backend.
  const Bounded negative = call(Function::relu, {-0.5, 0.25});
  EXPECT_EQ(negative.value, 0);
  EXPECT_EQ(negative.bound, 0);
  EXPECT_DOUBLE_EQ(call(Function::relu, {0.1, 0.25}).bound, 0.25);  // may be 0.35 or 0
  // exp: the far end of the image, plus 2 ulps.
  const Bounded e = call(Function::exp, {1, 0.1});
  EXPECT_GE(e.bound, std::exp(1.1) - std::exp(1.0));
  EXPECT_LT(e.bound, std::exp(1.1) - std::exp(1.0) + 1e-6);
  // gelu around its minimum (-0.17 at -0.75): from -0.75 +- 0.01 it can only rise a little.
  const Bounded g = call(Function::gelu_erf, {-0.7517915246935646, 0.01});
  EXPECT_LT(g.bound, 1e-4);
  // max: the winner's bound when the other argument cannot reach past it (0.5 + 0.3 < 1) ...
  EXPECT_EQ(call(Function::max, {1, 0.1}, {0.5, 0.3}).bound, 0.1);
  // ... else how far it reaches (0.95 + 0.3 - 1, rounded up), within max(e_x, e_y)
  EXPECT_NEAR(call(Function::max, {1, 0.1}, {0.95, 0.3}).bound, 0.25, 1e-15);
  EXPECT_GE(call(Function::max, {1, 0.1}, {0.95, 0.3}).bound, 0.25);
  EXPECT_GE(call(Function::min, {1, 0.1}, {1.05, 0.3}).bound, 0.25);
  EXPECT_LE(call(Function::min, {1, 0.1}, {1.05, 0.3}).bound, 0.3);
  // a value whose bound is below its ulp keeps it (1e6 + 1e-12 is 1e6 in a double)
  EXPECT_EQ(call(Function::max, {1e6, 1e-12}, {0, 1}).bound, 1e-12);
}

TEST(ErrorBound, NewFunctionsOnTheirDomains) {
  // sqrt, rsqrt, log: no claim where the interval leaves the domain, NaN where x does.
  EXPECT_EQ(call(Function::sqrt, {0.01, 0.02}).bound, kInf);
  EXPECT_EQ(call(Function::rsqrt, {0.01, 0.01}).bound, kInf);
  EXPECT_EQ(call(Function::log, {0.5, 0.6}).bound, kInf);
  EXPECT_TRUE(std::isnan(call(Function::sqrt, {-1, 0}).value));
  EXPECT_EQ(call(Function::sqrt, {-1, 0}).bound, 0);
  // rsqrt decreases: the farther end of the image is the lower argument's.
  const Bounded r = call(Function::rsqrt, {4, 0.5});
  EXPECT_DOUBLE_EQ(r.value, 0.5);
  EXPECT_GE(r.bound, 1 / std::sqrt(3.5) - 0.5);
  EXPECT_LT(r.bound, 1 / std::sqrt(3.5) - 0.5 + 1e-6);
  // abs is exact and moves no value farther than its argument.
  EXPECT_EQ(call(Function::abs, {-2, 0.25}).value, 2);
  EXPECT_EQ(call(Function::abs, {-2, 0.25}).bound, 0.25);
  // silu and gelu_tanh around their minima can only rise a little.
  EXPECT_LT(call(Function::silu, {-1.2784645427610738, 0.01}).bound, 1e-4);
  EXPECT_LT(call(Function::gelu_tanh, {-0.7524614220710163, 0.01}).bound, 1e-4);
  // gelu_tanh is within 1e-3 of gelu_erf, and not the same function.
  for (double x : {-3.0, -1.0, 0.5, 2.0}) {
    EXPECT_NEAR(call(Function::gelu_tanh, {x, 0}).value, call(Function::gelu_erf, {x, 0}).value, 1e-3);
    EXPECT_NE(call(Function::gelu_tanh, {x, 0}).value, call(Function::gelu_erf, {x, 0}).value);
  }
}

TEST(ErrorBound, OverflowIsExactOrNoClaim) {
  const Bounded certain = stored_as(ElementType::f16, {70000, 1});
  EXPECT_EQ(certain.value, kInf);
  EXPECT_EQ(certain.bound, 0);
  EXPECT_EQ(stored_as(ElementType::f16, {65500, 100}).bound, kInf);  // 65504 or inf
  EXPECT_EQ(call(Function::exp, {100, 0}).value, kInf);              // expf(100) = inf
  EXPECT_EQ(call(Function::exp, {88.7, 0.1}).bound, kInf);           // e^88.72 is FLT_MAX
}

// f32 values a backend may hold for the bounded value x: random points of [x - e, x + e]
// and its ends, rounded to f32 (and kept only when the rounding stays inside).
std::vector<float> perturbed(Bounded x, std::mt19937& random) {
  std::uniform_real_distribution<double> unit(-1, 1);
  std::vector<float> values;
  for (double s : {-1.0, 1.0, 0.0, unit(random), unit(random), unit(random)}) {
    const float value = static_cast<float>(x.value + s * x.bound);
    if (std::fabs(value - x.value) <= x.bound) values.push_back(value);
  }
  return values;
}

// A value of f32 (so that bound 0 has a sample) with a bound of 0 or 2^-4 .. 2^-23 of it.
Bounded random_bounded(std::mt19937& random, double scale) {
  std::uniform_real_distribution<double> unit(-1, 1);
  const double value = static_cast<float>(scale * unit(random));
  const double bound = random() % 3 == 0 ? 0 : std::fabs(value) * std::ldexp(1.0, -static_cast<int>(random() % 20 + 4));
  return {value, bound};
}

// |computed - x| <= e, with an infinite or NaN x matched exactly and no claim for e = inf.
bool within(double computed, Bounded x) {
  if (std::isinf(x.bound)) return true;
  if (std::isnan(x.value)) return std::isnan(computed);  // sqrt, log of an exact negative value
  if (std::isinf(x.value)) return computed == x.value;
  return std::fabs(computed - x.value) <= x.bound;
}

// Every value the CPU primitives compute from operands within their bounds is within
// the result's bound: the rules are sound for the implementations the backends use.
TEST(ErrorBound, EveryComputedValueIsWithinTheBound) {
  std::mt19937 random(11);
  const std::pair<cpu::UnaryOp, Function> unary[] = {{cpu::UnaryOp::relu, Function::relu},
                                                     {cpu::UnaryOp::sigmoid, Function::sigmoid},
                                                     {cpu::UnaryOp::tanh, Function::tanh},
                                                     {cpu::UnaryOp::gelu, Function::gelu_erf},
                                                     {cpu::UnaryOp::exp, Function::exp},
                                                     {cpu::UnaryOp::sqrt, Function::sqrt},
                                                     {cpu::UnaryOp::rsqrt, Function::rsqrt},
                                                     {cpu::UnaryOp::log, Function::log},
                                                     {cpu::UnaryOp::abs, Function::abs},
                                                     {cpu::UnaryOp::silu, Function::silu},
                                                     {cpu::UnaryOp::gelu_tanh, Function::gelu_tanh},
                                                     {cpu::UnaryOp::round_f16, Function::to_f16},
                                                     {cpu::UnaryOp::round_bf16, Function::to_bf16},
                                                     {cpu::UnaryOp::identity, Function::to_f32}};
  const std::pair<cpu::BinaryOp, BinaryOp> arithmetic[] = {{cpu::BinaryOp::add, BinaryOp::add},
                                                           {cpu::BinaryOp::sub, BinaryOp::sub},
                                                           {cpu::BinaryOp::mul, BinaryOp::mul},
                                                           {cpu::BinaryOp::div, BinaryOp::div}};
  int checked = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const double scale = std::ldexp(1.0, static_cast<int>(random() % 12) - 4);
    const Bounded x = random_bounded(random, scale), y = random_bounded(random, scale);
    for (const auto& [op, function] : unary) {
      const Bounded result = call(function, x);
      for (float v : perturbed(x, random)) {
        ++checked;
        EXPECT_TRUE(within(cpu::apply(op, v), result))
            << to_string(function) << "(" << x.value << " +- " << x.bound << ") at " << v << ": "
            << cpu::apply(op, v) << ", exact " << result.value << " +- " << result.bound;
      }
    }
    for (const auto& [op, binary_op] : arithmetic) {
      const Bounded result = binary(binary_op, x, y);
      for (float a : perturbed(x, random))
        for (float b : perturbed(y, random)) {
          ++checked;
          EXPECT_TRUE(within(cpu::apply(op, a, b), result))
              << to_string(binary_op) << " of " << a << " and " << b << ": " << cpu::apply(op, a, b)
              << ", exact " << result.value << " +- " << result.bound;
        }
    }
  }
  EXPECT_GT(checked, 100000);
}

// --- Reductions -------------------------------------------------------------------------

// A tensor core's block addition as Fasi et al. measured it: the accumulator and the
// products aligned to the largest magnitude, each truncated to 24 bits, added exactly,
// and the sum truncated to 24 bits.
float tensor_core_block(float accumulator, const float* products, int count) {
  double largest = std::fabs(accumulator);
  for (int i = 0; i < count; ++i) largest = std::max(largest, static_cast<double>(std::fabs(products[i])));
  if (largest == 0) return accumulator;
  int exponent;
  std::frexp(largest, &exponent);
  const double quantum = std::ldexp(1.0, exponent - 24);
  double sum = std::trunc(accumulator / quantum) * quantum;
  for (int i = 0; i < count; ++i) sum += std::trunc(products[i] / quantum) * quantum;
  if (sum == 0) return 0;
  std::frexp(sum, &exponent);
  const double result_quantum = std::ldexp(1.0, exponent - 24);
  return static_cast<float>(std::trunc(sum / result_quantum) * result_quantum);
}

float sum_forward(const std::vector<float>& terms) {
  float sum = 0;
  for (float t : terms) sum += t;
  return sum;
}

float sum_pairwise(const float* terms, std::size_t count) {
  if (count == 1) return terms[0];
  const std::size_t half = count / 2;
  return sum_pairwise(terms, half) + sum_pairwise(terms + half, count - half);
}

float sum_tensor_core(const std::vector<float>& terms, int block) {
  float accumulator = 0;
  for (std::size_t i = 0; i < terms.size(); i += static_cast<std::size_t>(block))
    accumulator = tensor_core_block(accumulator, terms.data() + i,
                                    static_cast<int>(std::min<std::size_t>(block, terms.size() - i)));
  return accumulator;
}

// Split-K over `splits` interleaved k-slices of `slice` terms, then the partial sums added.
float sum_split_k(const std::vector<float>& terms, int splits, std::size_t slice) {
  std::vector<float> partial(static_cast<std::size_t>(splits), 0);
  for (std::size_t i = 0; i < terms.size(); ++i) partial[(i / slice) % partial.size()] += terms[i];
  return sum_forward(partial);
}

// K products a_k b_k and their exact sum with its bound, as evaluate_exact computes them.
struct Dot {
  std::vector<float> a, b;
  Bounded bound;

  std::vector<float> products() const {  // rounded to f32 (exact for f16/bf16 operands)
    std::vector<float> p;
    for (std::size_t i = 0; i < a.size(); ++i) p.push_back(a[i] * b[i]);
    return p;
  }
};

// Operands uniform in [-1, 1] (or [0, 1]) rounded to `type`; the bound with the
// summation factor of that type (tensor cores for f16/bf16).
Dot random_dot(std::size_t k, bool same_sign, ElementType type, std::mt19937& random) {
  std::uniform_real_distribution<float> value(same_sign ? 0.f : -1.f, 1.f);
  Dot dot;
  Reduction reduction({0, 0}, type == ElementType::f32 ? kRoundToNearestSummationFactor
                                                       : kTensorCoreSummationFactor);
  for (std::size_t i = 0; i < k; ++i) {
    dot.a.push_back(round_to(type, value(random)));
    dot.b.push_back(round_to(type, value(random)));
    reduction.add(binary(BinaryOp::mul, {dot.a.back(), 0}, {dot.b.back(), 0}));
  }
  dot.bound = reduction.finish();
  return dot;
}

float sum_fma_chain(const Dot& dot) {
  float sum = 0;
  for (std::size_t i = 0; i < dot.a.size(); ++i) sum = std::fma(dot.a[i], dot.b[i], sum);
  return sum;
}

TEST(ErrorBound, EverySummationOrderIsWithinTheReductionBound) {
  std::mt19937 random(5);
  for (ElementType type : {ElementType::f32, ElementType::f16, ElementType::bf16})
    for (std::size_t k : {1u, 7u, 64u, 1000u, 4096u})
      for (bool same_sign : {false, true})
        for (int trial = 0; trial < 5; ++trial) {
          const Dot dot = random_dot(k, same_sign, type, random);
          const std::vector<float> products = dot.products();
          const std::vector<float> backward(products.rbegin(), products.rend());
          std::vector<std::pair<const char*, float>> orders = {
              {"forward", sum_forward(products)},
              {"backward", sum_forward(backward)},
              {"pairwise", sum_pairwise(products.data(), products.size())},
              {"split-K 4 x 16", sum_split_k(products, 4, 16)},
              {"FMA chain", sum_fma_chain(dot)},
          };
          if (type != ElementType::f32)
            for (int block : {4, 8, 16}) orders.push_back({"tensor core", sum_tensor_core(products, block)});
          for (const auto& [order, value] : orders)
            EXPECT_LE(std::fabs(value - dot.bound.value), dot.bound.bound)
                << order << ", " << to_string(type) << ", K = " << k << (same_sign ? ", same sign" : "");
        }
}

// Why the reduction term is deterministic: truncation is biased, so on same-signed terms
// a tensor core's error grows like K, beyond the probabilistic sqrt(K) law's bound
// lambda sqrt(K) u sum |t| even for lambda = 3, but within gamma(3 n u) sum |t|.
TEST(ErrorBound, TruncatingSumsOutgrowTheSqrtKLaw) {
  std::mt19937 random(9);
  const std::size_t k = 4096;
  const Dot dot = random_dot(k, true, ElementType::f16, random);
  const std::vector<float> products = dot.products();
  double magnitude = 0;
  for (float t : products) magnitude += std::fabs(t);
  const double probabilistic = 3 * std::sqrt(static_cast<double>(k)) * kU32 * magnitude;
  const double error = std::fabs(sum_tensor_core(products, 8) - dot.bound.value);
  EXPECT_GT(error, probabilistic);
  EXPECT_LE(error, dot.bound.bound);
  // Round to nearest stays far inside it.
  EXPECT_LT(std::fabs(sum_pairwise(products.data(), k) - dot.bound.value), probabilistic);
}

TEST(ErrorBound, ReductionBoundFollowsTheFormula) {
  Reduction reduction({1, 0.5}, kTensorCoreSummationFactor);  // `+=` from 1 +- 0.5
  reduction.add({2, 0.25});
  reduction.add({-3, 0});
  const Bounded sum = reduction.finish();
  EXPECT_EQ(sum.value, 0);
  const double magnitude = 1.5 + 2.25 + 3, t = 3 * 3 * kU32;
  EXPECT_NEAR(sum.bound, 0.75 + t / (1 - t) * magnitude, 1e-14);
}

}  // namespace
}  // namespace polyfuse::reference
