// The transcendental unary ops as the primitives compute them (on x86-64 with AVX2: whole
// vectors, kernels/cpu/src/vector_math.h: exp and erf our own, tanh glibc's libmvec) against f64
// libm, over a sweep of f32 bit patterns, within the bounds the reference check's model gives a
// function's implementation (runtime/reference/error_bound.h; u = 2^-24):
//   exp, tanh, log: 4 u |f(x)|;  sigmoid, silu: 6 u |f(x)|;
//   gelu (erf form): 3.5 u |x| + u |f(x)|;  gelu_tanh: 6 u |x| + u |f(x)|
// (plus the smallest normal, for results that underflow). And a value's result does not
// depend on where it sits in a row (the vector tail is padded, never scalar).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "polyfuse/cpu/elementwise.h"
#include "polyfuse/cpu/isa.h"
#include "reference.h"

namespace polyfuse::cpu::testing {
namespace {

constexpr double kU = 0x1p-24;

double truth(UnaryOp op, double x) {
  switch (op) {
    case UnaryOp::exp: return std::exp(x);
    case UnaryOp::tanh: return std::tanh(x);
    case UnaryOp::log: return std::log(x);
    case UnaryOp::sigmoid: return 1 / (1 + std::exp(-x));
    case UnaryOp::silu: return x / (1 + std::exp(-x));
    case UnaryOp::gelu: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case UnaryOp::gelu_tanh:
      return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    default: return std::nan("");
  }
}

double bound(UnaryOp op, double x, double y) {
  const double floor = 0x1p-126;
  switch (op) {
    case UnaryOp::exp:
    case UnaryOp::tanh:
    case UnaryOp::log: return 4 * kU * std::fabs(y) + floor;
    case UnaryOp::sigmoid:
    case UnaryOp::silu: return 6 * kU * std::fabs(y) + floor;
    case UnaryOp::gelu: return 3.5 * kU * std::fabs(x) + kU * std::fabs(y) + floor;
    case UnaryOp::gelu_tanh: return 6 * kU * std::fabs(x) + kU * std::fabs(y) + floor;
    default: return 0;
  }
}

// Every `step`-th f32 bit pattern (NaNs and infinities included).
std::vector<float> every_bit_pattern(uint32_t step) {
  std::vector<float> values;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += step) {
    const uint32_t pattern = static_cast<uint32_t>(bits);
    float x;
    std::memcpy(&x, &pattern, sizeof x);
    values.push_back(x);
  }
  return values;
}

// Those whose value is finite and inside the op's domain of finite results (exp below 88.7, silu
// above -88: where 1 + exp(-x) stays finite; log above 0).
std::vector<float> sweep(UnaryOp op, uint32_t step) {
  std::vector<float> values;
  for (const float x : every_bit_pattern(step)) {
    if (!std::isfinite(x)) continue;
    if (op == UnaryOp::exp && (x > 88.f || x < -87.f)) continue;
    if ((op == UnaryOp::silu || op == UnaryOp::sigmoid) && x < -87.f) continue;
    if (op == UnaryOp::log && !(x > 0)) continue;
    values.push_back(x);
  }
  return values;
}

const UnaryOp kOps[] = {UnaryOp::exp,  UnaryOp::tanh,      UnaryOp::sigmoid, UnaryOp::silu,
                        UnaryOp::gelu, UnaryOp::gelu_tanh, UnaryOp::log};

TEST(VectorMath, WithinTheReferenceModelOverASweep) {
  for (UnaryOp op : kOps) {
    SCOPED_TRACE(to_string(op));
    const std::vector<float> x = sweep(op, 997);
    std::vector<float> y(x.size());
    const int64_t n = static_cast<int64_t>(x.size());
    const Unary unary({.m = 1, .n = n, .op = op, .in = {Layout::row_major}, .out = {Layout::row_major}});
    unary(x.data(), y.data(), n, n);
    double worst = 0;  // of error / bound
    float worst_x = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double t = truth(op, x[i]);
      const double used = std::fabs(y[i] - t) / bound(op, x[i], t);
      if (used > worst) worst = used, worst_x = x[i];
    }
    EXPECT_LE(worst, 1.0) << "worst at x = " << worst_x << " (" << std::hexfloat << worst_x << ")";
    std::printf("%-9s %zu values, worst error %.2f of the bound\n", to_string(op), x.size(), worst);
  }
}

TEST(VectorMath, AValueGivesTheSameBitsAnywhereInARow) {
  std::vector<float> row(37);
  for (std::size_t i = 0; i < row.size(); ++i) row[i] = -6.f + 0.331f * static_cast<float>(i);
  const int64_t n = static_cast<int64_t>(row.size());
  for (UnaryOp op : kOps) {
    SCOPED_TRACE(to_string(op));
    std::vector<float> whole(row.size());
    Unary({.m = 1, .n = n, .op = op, .in = {Layout::row_major}, .out = {Layout::row_major}})(row.data(), whole.data(), n, n);
    const Unary single({.m = 1, .n = 1, .op = op, .in = {}, .out = {}});
    for (std::size_t i = 0; i < row.size(); ++i) {
      float alone = 0;
      single(&row[i], &alone, 1, 1);
      EXPECT_EQ(std::memcmp(&alone, &whole[i], sizeof alone), 0) << "at " << i << ": " << alone << " vs " << whole[i];
    }
  }
}

// op on one row of `x` then `edges`: each of `x` within `ulps` u of f64 `truth`, relative (plus
// `floor`); the edges' results returned.
template <class Truth>
std::vector<float> expect_within_ulps_then_edges(UnaryOp op, std::vector<float> x, const std::vector<float>& edges,
                                                 double ulps, double floor, Truth truth) {
  const std::size_t count = x.size();
  x.insert(x.end(), edges.begin(), edges.end());
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<float> y(x.size());
  Unary({.m = 1, .n = n, .op = op, .in = {Layout::row_major}, .out = {Layout::row_major}})(x.data(), y.data(), n, n);
  double worst = 0;
  float worst_x = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const double t = truth(static_cast<double>(x[i]));
    const double used = std::fabs(y[i] - t) / (ulps * kU * std::fabs(t) + floor);
    if (used > worst) worst = used, worst_x = x[i];
  }
  EXPECT_LE(worst, 1.0) << to_string(op) << " worst at x = " << worst_x << " (" << std::hexfloat << worst_x << ")";
  return {y.begin() + static_cast<std::ptrdiff_t>(count), y.end()};
}

// exp is kernels/cpu's own polynomial on the vector paths (src/vector_exp.h): within 1.5 u of f64
// libm over every 61st bit pattern of its finite range (subnormal results: half the smallest
// subnormal step more), and the edges: overflow to infinity, underflow to zero, NaN kept.
TEST(VectorMath, ExpIsWithinOneAndAHalfUlpsAndKeepsItsEdges) {
  std::vector<float> x;
  for (const float v : every_bit_pattern(61))
    if (std::isfinite(v) && v > -104.f && v < 88.7f) x.push_back(v);
  const std::vector<float> edge = expect_within_ulps_then_edges(
      UnaryOp::exp, x, {88.72f, 88.73f, 100.f, INFINITY, -104.f, -110.f, -INFINITY, NAN, -0.f, 0.f}, 1.5, 0x1p-150,
      [](double v) { return std::exp(v); });
  EXPECT_EQ(edge[0], std::exp(88.72f));
  EXPECT_EQ(edge[1], INFINITY);
  EXPECT_EQ(edge[2], INFINITY);
  EXPECT_EQ(edge[3], INFINITY);
  EXPECT_EQ(edge[4], 0.f);  // e^-104 is under half the smallest subnormal
  EXPECT_EQ(edge[5], 0.f);
  EXPECT_EQ(edge[6], 0.f);
  EXPECT_TRUE(std::isnan(edge[7]));
  EXPECT_EQ(edge[8], 1.f);
  EXPECT_EQ(edge[9], 1.f);
}

// exp, erf and log (kernels/cpu's own) and what is made of them (sigmoid, silu, gelu), sqrt, rsqrt
// and abs give the same bits 8 lanes wide (AVX2) and 16 (AVX-512), whichever path the CPU runs
// (POLYFUSE_CPU_ISA when a Unary is made): a row with a tail, NaN, infinities, subnormals,
// overflow and underflow.
TEST(VectorMath, ExpErfAndTheExactOpsGiveTheSameBitsOnEveryVectorPath) {
  const char* saved = std::getenv("POLYFUSE_CPU_ISA");
  const std::string restore = saved ? saved : "";
  std::vector<float> x;
  for (int i = 0; i < 203; ++i) x.push_back(std::sin(float(i) * 0.77f) * 40.f);
  for (const float v : {NAN, INFINITY, -INFINITY, -0.f, 1e-40f, -1e-40f, 88.7f, 88.8f, -87.5f, -103.f, -110.f})
    x.push_back(v);
  const int64_t n = static_cast<int64_t>(x.size());
  for (const float v : {0.f, 1.f, 0x1p-149f, 0x1p-126f, 0x1.fffffep-127f, 3e38f, 0.70710677f, 1.4142135f})
    x.push_back(v);  // log's edges and the ends of its mantissa interval
  for (UnaryOp op : {UnaryOp::exp, UnaryOp::sigmoid, UnaryOp::silu, UnaryOp::gelu, UnaryOp::sqrt, UnaryOp::rsqrt,
                     UnaryOp::abs, UnaryOp::log}) {
    SCOPED_TRACE(to_string(op));
    std::vector<std::vector<uint32_t>> results;
    for (Isa isa : {Isa::avx2, Isa::avx512}) {
      if (!isa_supported(isa)) continue;
      ::setenv("POLYFUSE_CPU_ISA", to_string(isa), 1);
      std::vector<float> y(x.size(), -7.f);
      Unary({.m = 1, .n = n, .op = op, .in = {Layout::row_major}, .out = {Layout::row_major}})(x.data(), y.data(), n, n);
      std::vector<uint32_t> bits(y.size());
      std::memcpy(bits.data(), y.data(), y.size() * sizeof(float));
      if (!results.empty()) {
        for (std::size_t i = 0; i < bits.size(); ++i) EXPECT_EQ(bits[i], results.front()[i]) << to_string(isa) << " at x = " << x[i];
      }
      results.push_back(std::move(bits));
    }
  }
  if (saved) ::setenv("POLYFUSE_CPU_ISA", restore.c_str(), 1);
  else ::unsetenv("POLYFUSE_CPU_ISA");
}

// log is kernels/cpu's own on the vector paths (src/vector_log.h): within 1.4 u of f64 libm's
// |log x| over every 61st bit pattern of the positive floats, subnormals included, and std::log's
// edges: -infinity at +-0, NaN below 0 and at NaN, +infinity at +infinity, 0 at 1.
TEST(VectorMath, LogIsWithinOneAndAHalfUlpsAndKeepsItsEdges) {
  std::vector<float> x;
  for (const float v : every_bit_pattern(61))
    if (v > 0 && std::isfinite(v)) x.push_back(v);
  const std::vector<float> edges = {0.f, -0.f, -1.f, -0x1p-149f, -INFINITY, INFINITY, NAN, 1.f};
  const std::vector<float> edge =
      expect_within_ulps_then_edges(UnaryOp::log, x, edges, 1.4, 0x1p-149, [](double v) { return std::log(v); });
  EXPECT_EQ(edge[0], -INFINITY);
  EXPECT_EQ(edge[1], -INFINITY);
  for (int i : {2, 3, 4, 6}) EXPECT_TRUE(std::isnan(edge[i])) << edges[i] << " gave " << edge[i];
  EXPECT_EQ(edge[5], INFINITY);
  EXPECT_EQ(edge[7], 0.f);
}

// sqrt, rsqrt and abs are exact IEEE operations: their rows have the scalar definition's bits
// (apply), for every 61st f32 bit pattern (every 251st under an emulator: this was the aarch64
// stage's longest test under qemu, 37 s), NaNs, infinities and negatives included.
TEST(VectorMath, SqrtRsqrtAbsRowsAreTheScalarDefinitionBitForBit) {
  const std::vector<float> x = every_bit_pattern(emulated() ? 251 : 61);
  const int64_t n = static_cast<int64_t>(x.size());
  for (UnaryOp op : {UnaryOp::sqrt, UnaryOp::rsqrt, UnaryOp::abs}) {
    SCOPED_TRACE(to_string(op));
    std::vector<float> y(x.size());
    Unary({.m = 1, .n = n, .op = op, .in = {Layout::row_major}, .out = {Layout::row_major}})(x.data(), y.data(), n, n);
    int64_t differing = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const float want = apply(op, x[i]);
      if (std::memcmp(&want, &y[i], sizeof want) != 0 && !(std::isnan(want) && std::isnan(y[i]))) ++differing;
    }
    EXPECT_EQ(differing, 0);
  }
}

}  // namespace
}  // namespace polyfuse::cpu::testing
