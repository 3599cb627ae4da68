// The reference's bound for FP8 matmuls (error_bound.h: Fp8Accumulation) against emulated
// accumulators: exact FP8 products summed in k order by an accumulator that truncates every
// sum to p significant bits. Same-signed terms (absolute values of FP8 inputs), so truncation
// errors add up instead of cancelling. The hopper bound (one 14-bit truncation, 2^-13, per
// addition) holds for p = 14, which the f32 bound (c = 3) does not; a coarser accumulator
// (p = 8) fails the hopper bound too.
#include <gtest/gtest.h>

#include <cmath>

#include "frontend/frontend.h"
#include "runtime/reference/compare.h"

namespace polyfuse::reference {
namespace {

// x truncated (towards zero) to `bits` significant bits.
double truncated(double x, int bits) {
  if (x == 0) return 0;
  const double scale = std::ldexp(1.0, std::ilogb(x) - bits + 1);
  return std::trunc(x / scale) * scale;
}

struct Fp8Gemm {
  Program program;
  TensorData inputs;
  int m, n, k;
};

Fp8Gemm fp8_gemm() {
  const int m = 8, n = 8, k = 256;
  Program program = compile_source(SourceFile{"t.tc", R"(
def g(e4m3(M, K) A, e5m2(N, K) B) -> (f32(M, N) C) {
  C(m, n) +=! A(m, k) * B(n, k)
})"}, {{"M", m}, {"N", n}, {"K", k}}).programs.at(0);
  TensorData inputs = random_tensors(program, 7);
  for (const char* name : {"A", "B"})
    for (float& x : inputs.at(name)) x = std::fabs(x);  // FP8 values stay FP8 values
  return {program, inputs, m, n, k};
}

// C as an accumulator of `bits` significant bits computes it.
TensorData accumulated(const Fp8Gemm& g, int bits) {
  TensorData out = g.inputs;
  std::vector<float>& c = out.at("C");
  const std::vector<float>& a = g.inputs.at("A");
  const std::vector<float>& b = g.inputs.at("B");
  for (int i = 0; i < g.m; ++i)
    for (int j = 0; j < g.n; ++j) {
      double acc = 0;
      for (int p = 0; p < g.k; ++p)
        acc = truncated(acc + static_cast<double>(a[i * g.k + p]) * b[j * g.k + p], bits);  // exact product
      c[i * g.n + j] = static_cast<float>(acc);
    }
  return out;
}

TEST(Fp8Accumulation, HopperBoundHoldsForA14BitTruncatingAccumulator) {
  const Fp8Gemm g = fp8_gemm();
  const TensorData c14 = accumulated(g, 14);
  const CheckReport hopper = check_outputs(g.program, g.inputs, c14, F32Matmul::f32, Fp8Accumulation::hopper);
  EXPECT_TRUE(hopper.ok) << hopper.to_string();
  // the f32 bound (c = 3) is for f32 sums (CPU target, emulator): a 14-bit accumulator fails it
  EXPECT_FALSE(check_outputs(g.program, g.inputs, c14, F32Matmul::f32, Fp8Accumulation::f32).ok);
  // f32 sums pass both
  const TensorData c24 = accumulated(g, 24);
  EXPECT_TRUE(check_outputs(g.program, g.inputs, c24, F32Matmul::f32, Fp8Accumulation::f32).ok);
  EXPECT_TRUE(check_outputs(g.program, g.inputs, c24, F32Matmul::f32, Fp8Accumulation::hopper).ok);
}

TEST(Fp8Accumulation, HopperBoundFailsACoarserAccumulator) {
  const Fp8Gemm g = fp8_gemm();
  EXPECT_FALSE(check_outputs(g.program, g.inputs, accumulated(g, 8), F32Matmul::f32, Fp8Accumulation::hopper).ok);
}

// The factor: 3 u_acc in units of u_f32, u_acc = 2^-13.
TEST(Fp8Accumulation, SummationFactors) {
  EXPECT_EQ(fp8_matmul_summation_factor(Fp8Accumulation::f32), 3);
  EXPECT_EQ(fp8_matmul_summation_factor(Fp8Accumulation::hopper), 3 * 2048);
}

}  // namespace
}  // namespace polyfuse::reference
