// Regression tests for a miscompile: a def whose matmuls write outputs of different shapes
// (TC's matmul gradient, d_A(m, k) and d_B(k, n); or E(m, n) beside F(n, m)) was compiled
// to one kernel whose context pinned every blockIdx to 0 — every block computed tile
// (0, 0) and the rest of both outputs kept whatever was there. Now the grid spans the
// largest output along each axis (codegen/kernel_grid.h) and the smaller outputs' blocks
// past their ends do nothing. Each case runs on the emulator against the reference, at
// even and odd sizes, with default and small tiles, so that each output is the larger one
// along some axis.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "emu_harness.h"
#include "gemm_programs.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

const char* const transposed_pair =
    "def two_shapes(f16(M, K) A, f16(K, N) B, f16(N, K) C, f16(K, M) D) -> (f16(M, N) E, f16(N, M) F) {\n"
    "  E(m, n) +=! A(m, k) * B(k, n)\n"
    "  F(n, m) +=! C(n, k) * D(k, m)\n"
    "}\n";

const char* const matmul_gradient =
    "def matmul_grad(f16(M, K) A, f16(K, N) B, f16(M, N) d_C) -> (f16(M, K) d_A, f16(K, N) d_B) {\n"
    "  d_A(m, k) +=! d_C(m, n) * B(k, n)\n"
    "  d_B(k, n) +=! d_C(m, n) * A(m, k)\n"
    "}\n";

// The CLI's defaults: the warp tile shrinks until both accumulator tiles fit.
GpuOptions defaults() {
  GpuOptions o;
  o.choose_warp = true;
  return o;
}

GpuOptions small_tiles() {
  GpuOptions o = defaults();
  o.block = {32, 32, 16};
  o.warp = {16, 16, 16};
  return o;
}

struct Shape {
  int m, n, k;
};

void expect_correct(const char* source, Shape s, const GpuOptions& options) {
  Program program = compile_program(source, {{"M", s.m}, {"N", s.n}, {"K", s.k}});
  EmuRun run = run_on_emulator(program, options);
  EXPECT_TRUE(run.check.ok) << run.check.to_string() << " at M=" << s.m << " N=" << s.n << " K=" << s.k;
}

const Shape shapes[] = {{256, 128, 64}, {128, 256, 64}, {99, 33, 70}, {40, 130, 17}, {1, 65, 3}};

TEST(OutputShapesEmu, TransposedPairDefaultTiles) {
  for (Shape s : shapes) expect_correct(transposed_pair, s, defaults());
}

TEST(OutputShapesEmu, TransposedPairSmallTiles) {
  for (Shape s : shapes) expect_correct(transposed_pair, s, small_tiles());
}

TEST(OutputShapesEmu, MatmulGradientDefaultTiles) {
  for (Shape s : shapes) expect_correct(matmul_gradient, s, defaults());
}

TEST(OutputShapesEmu, MatmulGradientSmallTiles) {
  for (Shape s : shapes) expect_correct(matmul_gradient, s, small_tiles());
}

// Each output is stored exactly once: no block writes another block's tile.
TEST(OutputShapesEmu, EachOutputStoredOnce) {
  Program program = compile_program(matmul_gradient, {{"M", 96}, {"N", 40}, {"K", 160}});
  EmuRun run = run_on_emulator(program, small_tiles());
  ASSERT_TRUE(run.check.ok) << run.check.to_string();
  ASSERT_NE(run.stats.buffer("d_A"), nullptr);
  ASSERT_NE(run.stats.buffer("d_B"), nullptr);
  EXPECT_EQ(run.stats.buffer("d_A")->bytes_stored, 96u * 160 * 2);
  EXPECT_EQ(run.stats.buffer("d_B")->bytes_stored, 160u * 40 * 2);
}

}  // namespace
}  // namespace polyfuse
