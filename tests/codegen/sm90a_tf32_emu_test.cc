// f32 GEMMs on sm_90a through the driver (run_program) on the emulator: f32 A(m, k) and B(n, k)
// loaded by TMA (4-byte elements, k-blocks of 32 = one 128-byte swizzled row), TF32 wgmma
// m64nNk8 from both K-major tiles, f32 accumulators, the pointwise epilogue of the staged
// accumulators; against the f64 reference with its TF32 error bound. The emulator reads the
// operands as TF32 by truncation (the tensor cores do not round the low 13 bits in): the result
// must be the truncated operands' sum, not the rounded ones'. A planted bug (half of each
// k-block's k-steps) must fail, and what TF32 wgmma cannot read falls back to mma.sync with the
// reason.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "codegen/cuda_emitter.h"
#include "emu_harness.h"
#include "gemm_programs.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

const char* const kLinear = R"(def linear(f32(M, K) A, f32(N, K) W, f32(N) bias) -> (f32(M, N) D) {
  C(m, n) +=! A(m, k) * W(n, k)
  D(m, n) = relu(C(m, n) + bias(n))
}
)";

EmuRun run_tf32(const std::string& source, int m, int n, int k, const EmuRunOptions& options = {}) {
  Program program = compile_program(source, {{"M", m}, {"N", n}, {"K", k}});
  return run_on_emulator(program, default_gpu_options(Arch::sm_90a), options);
}

void expect_tf32_wgmma(const EmuRun& run, const std::string& what) {
  EXPECT_TRUE(run.check.ok) << what << run.check.to_string();
  EXPECT_GT(run.stats.counter("wgmma_instructions"), 0u) << what;
  EXPECT_GT(run.stats.counter("tma_bytes"), 0u) << what;
  EXPECT_EQ(run.stats.counter("async_copies"), 0u) << what << ": no cp.async (mma.sync) main loop";
}

std::string config_of(const std::string& source, const GpuOptions& options) {
  const Program program = compile_program(source, {{"M", 256}, {"N", 256}, {"K", 256}});
  return emit_config_text(program, options);
}

// nn.Linear's layout (W(n, k)) with bias and ReLU at whole tiles, at edge tiles in M and N with a
// K tail (K = 100: three k-blocks and 16 bytes of a fourth, zero-filled by TMA), and one
// consumer (M <= 64).
TEST(Sm90aTf32Emu, LinearLayerTakesTf32Wgmma) {
  for (auto [m, n, k] : {std::array{128, 128, 64}, std::array{67, 136, 100}, std::array{40, 24, 8}})
    expect_tf32_wgmma(run_tf32(kLinear, m, n, k), fmt::format("linear {}x{}x{}: ", m, n, k));
}

// A plain store in f32 and in f16, and a batched product (attention's Q(b, s, d) K(b, t, d)).
TEST(Sm90aTf32Emu, OutputsAndBatches) {
  expect_tf32_wgmma(run_tf32("def f(f32(M, K) A, f32(N, K) B) -> (f16(M, N) C) {\n  C(m, n) +=! A(m, k) * B(n, k)\n}\n", 130,
                             72, 48),
                    "f16 output: ");
  Program batched = compile_program(
      "def f(f32(Z, M, K) A, f32(Z, N, K) B) -> (f32(Z, M, N) C) {\n  C(z, m, n) +=! A(z, m, k) * B(z, n, k)\n}\n",
      {{"Z", 3}, {"M", 70}, {"N", 64}, {"K", 40}});
  expect_tf32_wgmma(run_on_emulator(batched, default_gpu_options(Arch::sm_90a)), "batched: ");
}

// x with its low 13 mantissa bits cleared (TF32 by truncation) and rounded to nearest, ties away
// (cvt.rna), for finite x.
float truncated(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits &= ~0x1fffu;
  std::memcpy(&x, &bits, 4);
  return x;
}
float rounded(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits = (bits + 0x1000u) & ~0x1fffu;
  std::memcpy(&x, &bits, 4);
  return x;
}

// The emulator's TF32 wgmma truncates: every C(m, n) is the f64 sum of the truncated operands'
// products within f32 summation (32 terms), and many differ from the rounded operands' sum by
// more than that.
TEST(Sm90aTf32Emu, OperandsAreTruncatedToTf32) {
  const int m = 64, n = 32, k = 32;
  const EmuRun run =
      run_tf32("def f(f32(M, K) A, f32(N, K) B) -> (f32(M, N) C) {\n  C(m, n) +=! A(m, k) * B(n, k)\n}\n", m, n, k);
  ASSERT_TRUE(run.check.ok) << run.check.to_string();
  const std::vector<float>&a = run.outputs.at("A"), &b = run.outputs.at("B"), &c = run.outputs.at("C");
  int off_truncated = 0, off_rounded = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum_t = 0, sum_r = 0, magnitude = 0;
      for (int kk = 0; kk < k; ++kk) {
        const float x = a[static_cast<std::size_t>(i * k + kk)], y = b[static_cast<std::size_t>(j * k + kk)];
        sum_t += double(truncated(x)) * truncated(y);
        sum_r += double(rounded(x)) * rounded(y);
        magnitude += std::fabs(double(x) * y);
      }
      const double f32_sums = 40 * 0x1p-24 * magnitude, got = c[static_cast<std::size_t>(i * n + j)];
      off_truncated += std::fabs(got - sum_t) > f32_sums;
      off_rounded += std::fabs(got - sum_r) > f32_sums;
    }
  EXPECT_EQ(off_truncated, 0);
  EXPECT_GT(off_rounded, m * n / 4);
}

// Two k-steps of each k-block's four: half of K is not multiplied, and the check must fail.
TEST(Sm90aTf32Emu, PlantedKBlockErrorFails) {
  EmuRunOptions options;
  options.edit = replacing(", 4, kb > 0);", ", 2, kb > 0);");
  const EmuRun run = run_tf32(kLinear, 128, 128, 64, options);
  EXPECT_FALSE(run.check.ok) << "the planted k-block error passed";
}

// What TF32 wgmma cannot take runs the mma.sync TF32 loop, and --emit=config says why.
TEST(Sm90aTf32Emu, FallbacksSayWhy) {
  const GpuOptions sm90a = default_gpu_options(Arch::sm_90a);
  EXPECT_NE(config_of(kLinear, sm90a).find("main loop: TMA + wgmma\n"), std::string::npos);
  EXPECT_NE(config_of(kLinear, sm90a).find("wgmma m64nNk8.tf32 reads the f32 tiles TMA loaded as TF32"),
            std::string::npos);
  EXPECT_NE(config_of(example_source("gemm_f32"), sm90a)
                .find("f32 operands that are not K-major (A(m, k), B(n, k): TF32 wgmma reads no other; they run TF32 "
                      "mma.sync m16n8k8)"),
            std::string::npos);
  GpuOptions x3 = sm90a;
  x3.f32_matmul = F32Matmul::x3tf32;
  EXPECT_NE(config_of(kLinear, x3).find("3xTF32 f32 matmuls (they run mma.sync m16n8k8"), std::string::npos);
}

}  // namespace
}  // namespace polyfuse
