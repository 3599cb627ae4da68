// FP8 GEMMs on sm_90a through the driver (run_program) on the emulator: e4m3/e5m2 A(m, k) and
// B(n, k) loaded by TMA (1-byte elements, k-blocks of 128 = one 128-byte swizzled row), FP8
// wgmma m64nNk32 from both K-major tiles, f32 accumulators, the pointwise epilogue of the staged
// accumulators; against the f64 reference with its error bound. A planted bug (the k-step of
// a 16-bit wgmma, 16 bytes too short for FP8's 32) must fail.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>

#include "emu_harness.h"
#include "gemm_programs.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

EmuRun run_fp8(const std::string& source, int m, int n, int k, const EmuRunOptions& options = {}) {
  Program program = compile_program(source, {{"M", m}, {"N", n}, {"K", k}});
  return run_on_emulator(program, default_gpu_options(Arch::sm_90a), options);
}

void expect_fp8_wgmma(const EmuRun& run, const std::string& what) {
  EXPECT_TRUE(run.check.ok) << what << run.check.to_string();
  EXPECT_GT(run.stats.counter("wgmma_instructions"), 0u) << what;
  EXPECT_GT(run.stats.counter("tma_bytes"), 0u) << what;
}

// examples/gemm_fp8.tc (per-row and per-column scales, bias, ReLU, f16 out) at a shape of whole
// tiles and at one with edge tiles in M and N and a K tail (K = 208: one k-block and 80 bytes,
// zero-filled by TMA).
TEST(Sm90aFp8Emu, GemmFp8ExampleTakesFp8Wgmma) {
  for (auto [m, n, k] : {std::array{128, 128, 256}, std::array{67, 136, 208}})
    expect_fp8_wgmma(run_fp8(example_source("gemm_fp8"), m, n, k), fmt::format("gemm_fp8 {}x{}x{}: ", m, n, k));
}

// Every pair of FP8 kinds, a plain store in f32 and bf16, one consumer (M <= 64) and two.
TEST(Sm90aFp8Emu, EveryFp8PairAndOutput) {
  struct Case {
    const char *a, *b, *c;
    int m, n, k;
  };
  for (const Case& c : {Case{"e5m2", "e5m2", "f32", 64, 72, 128}, Case{"e4m3", "e5m2", "bf16", 130, 64, 48},
                        Case{"e5m2", "e4m3", "f16", 1, 16, 16}}) {
    const std::string source = fmt::format("def f({}(M, K) A, {}(N, K) B) -> ({}(M, N) C) {{\n  C(m, n) +=! A(m, k) * B(n, k)\n}}\n",
                                           c.a, c.b, c.c);
    expect_fp8_wgmma(run_fp8(source, c.m, c.n, c.k), source);
  }
}

// A k-block of 16-bit wgmma's k-steps (64 elements: 2 k32 steps) instead of FP8's 128 (4): half
// of each k-block is not multiplied, and the check must fail.
TEST(Sm90aFp8Emu, PlantedKBlockErrorFails) {
  EmuRunOptions options;
  options.edit = replacing(", 4, kb > 0);", ", 2, kb > 0);");
  const EmuRun run = run_fp8(example_source("gemm_fp8"), 128, 128, 256, options);
  EXPECT_FALSE(run.check.ok) << "the planted k-block error passed";
}

}  // namespace
}  // namespace polyfuse
