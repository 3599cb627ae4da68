// Shared operand tiles (issue 21 item 1): matmuls of one kernel that read the same A tile
// run in one k-loop. On the emulator against the exact reference, the byte counters show X
// loaded once per block and k-step however many matmuls read it, every B once, and only the
// outputs stored; odd shapes, ring depths, split-K, transposed and prologue A tiles, three
// matmuls, bf16. Matmuls that must not share (another prologue on A) still load A each.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "emu_harness.h"
#include "gemm_programs.h"
#include "schedule/plan_from_program.h"
#include "schedule/shared_operands.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// What the command line picks for two matmuls: 128x128x32 blocks of 64x32 warp tiles (the
// register model's fit for two accumulator tiles: codegen/register_model.h).
GpuOptions wide_blocks() {
  GpuOptions options;
  options.warp = {64, 32, 32};
  return options;
}

// Runs `source` and checks it; with one column of blocks (N <= block N) each input tile is
// loaded once, so X's bytes are those of X.
EmuRun expect_ok(const std::string& source, const SizeBindings& sizes, const GpuOptions& options) {
  Program program = compile_program(source, sizes);
  EmuRun run = run_on_emulator(program, options);
  EXPECT_TRUE(run.check.ok) << run.check.to_string() << "\n" << source;
  return run;
}

// `def two` with C +=! <a1> * W1(k, n) and D +=! <a2> * W2(k, n), both outputs; a1 and a2 may
// read X(m, k), Y(m, k) and s(k).
std::string two_matmuls(const std::string& a1, const std::string& a2) {
  return "def two(f16(M, K) X, f16(M, K) Y, f16(K) s, f16(K, N) W1, f16(K, N) W2) -> (f32(M, N) C, f32(M, N) D) {\n"
         "  C(m, n) +=! " + a1 + " * W1(k, n)\n"
         "  D(m, n) +=! " + a2 + " * W2(k, n)\n"
         "}\n";
}

TEST(SharedOperandEmu, SwiGluLoadsXOncePerBlockAndKStep) {
  const std::string source = example_source("swiglu");
  for (const SizeBindings& sizes : {SizeBindings{{"M", 128}, {"N", 128}, {"K", 96}},
                                    SizeBindings{{"M", 100}, {"N", 72}, {"K", 88}}}) {
    EmuRun run = expect_ok(source, sizes, wide_blocks());  // one column of blocks
    const std::int64_t m = sizes.at("M"), n = sizes.at("N"), k = sizes.at("K");
    EXPECT_EQ(bytes_loaded(run, "X"), static_cast<std::uint64_t>(m * k * 2)) << "X once, not once per matmul";
    EXPECT_EQ(bytes_loaded(run, "Wg"), static_cast<std::uint64_t>(k * n * 2));
    EXPECT_EQ(bytes_loaded(run, "Wu"), static_cast<std::uint64_t>(k * n * 2));
    EXPECT_EQ(run.stats.counter("global_bytes_stored"), static_cast<std::uint64_t>(m * n * 2)) << "only H is stored";
  }
}

TEST(SharedOperandEmu, SeveralBlockColumnsLoadXOncePerColumn) {
  const SizeBindings sizes{{"M", 70}, {"N", 150}, {"K", 72}};
  EmuRun run = expect_ok(example_source("swiglu"), sizes, small_tiles());
  const std::int64_t columns = ceil_div(150, small_tiles().block.n);
  EXPECT_EQ(bytes_loaded(run, "X"), static_cast<std::uint64_t>(columns * 70 * 72 * 2));
}

TEST(SharedOperandEmu, RingDepthsAndSplitK) {
  const SizeBindings sizes{{"M", 64}, {"N", 64}, {"K", 200}};
  for (int stages : {1, 3, 4}) {
    GpuOptions options = small_tiles();
    options.stages = stages;
    EmuRun run = expect_ok(example_source("swiglu"), sizes, options);
    EXPECT_EQ(bytes_loaded(run, "X"), 64u * 200 * 2) << stages << " stages";
  }
  GpuOptions split = small_tiles();
  split.split_k = 2;
  split.warp.k = split.block.k / 2;
  EmuRun run = expect_ok(example_source("swiglu"), sizes, split);
  EXPECT_EQ(bytes_loaded(run, "X"), 64u * 200 * 2) << "split-K 2";
}

TEST(SharedOperandEmu, ThreeMatmulsTransposedOperandsBf16) {
  const std::string source =
      "def three(bf16(K, M) X, bf16(N, K) Wa, bf16(N, K) Wb, bf16(K, N) Wc, f32(M, N) R) -> (f32(M, N) O, f32(M, N) G) {\n"
      "  G(m, n) +=! X(k, m) * Wa(n, k)\n"
      "  U(m, n) +=! X(k, m) * Wb(n, k)\n"
      "  V(m, n) +=! X(k, m) * Wc(k, n)\n"
      "  O(m, n) = gelu_tanh(G(m, n)) * U(m, n) + V(m, n) + R(m, n)\n"
      "}\n";
  // three accumulator tiles: 64x128 blocks of 32x32 warp tiles (8 warps); at 128x128 the 16
  // warps' threads may have 128 registers each, and ptxas spilled 40 bytes there
  GpuOptions options = wide_blocks();
  options.block = {64, 128, 32};
  options.warp = {32, 32, 32};
  EmuRun run = expect_ok(source, {{"M", 72}, {"N", 40}, {"K", 56}}, options);
  EXPECT_EQ(bytes_loaded(run, "X"), 72u * 56 * 2);
  EXPECT_EQ(run.stats.counter("global_bytes_stored"), 2u * 72 * 40 * 4) << "O and G (an output) stored once each";
}

TEST(SharedOperandEmu, APrologueIsAppliedOnceForEveryMatmul) {
  const std::string a = "relu(X(m, k)) * s(k)";
  EmuRun run = expect_ok(two_matmuls(a, a), {{"M", 48}, {"N", 40}, {"K", 72}}, wide_blocks());
  EXPECT_EQ(bytes_loaded(run, "X"), 48u * 72 * 2);
}

TEST(SharedOperandEmu, OtherPrologueOrOtherTensorLoadsAForEach) {
  EmuRun run = expect_ok(two_matmuls("X(m, k)", "relu(X(m, k))"), {{"M", 48}, {"N", 40}, {"K", 72}}, wide_blocks());
  EXPECT_EQ(bytes_loaded(run, "X"), 2u * 48 * 72 * 2) << "two k-loops, X loaded by each";
  EmuRun add = expect_ok(example_source("add_gemms"), {{"M", 48}, {"N", 40}, {"K", 72}}, wide_blocks());
  EXPECT_EQ(bytes_loaded(add, "A"), 48u * 72 * 2);
  EXPECT_EQ(bytes_loaded(add, "E"), 48u * 72 * 2);
}

// The decision itself, with the reason printed for what does not share.
TEST(SharedOperands, WhyNotShared) {
  const std::string source =
      "def f(f16(M, K) X, f16(K, N) W1, f16(K, N) W2, f16(K, N) W3) -> (f32(M, N) C, f32(M, N) D, f32(M, N) E) {\n"
      "  C(m, n) +=! X(m, k) * W1(k, n)\n"
      "  D(m, n) +=! X(m, k) * W2(k, n)\n"
      "  E(m, n) +=! W3(k, n) * X(m, k)\n"
      "}\n";
  Program program = compile_program(source, {});
  KernelPlan plan = plan_gpu_kernel(program, recognize_idioms(program));
  ASSERT_EQ(plan.matmuls.size(), 3u);
  EXPECT_TRUE(plan.matmuls[1].shares_a_with_previous);
  EXPECT_TRUE(plan.matmuls[2].shares_a_with_previous) << "E's A operand is X too (the operands are ordered by role)";
  EXPECT_EQ(plan.matmul_groups().size(), 1u);
  EXPECT_EQ(shared_operand_loops(plan), std::vector<std::string>{"S0, S1 and S2 run in one k-loop that loads X's tiles once per k-step"});

  Program other = compile_program(two_matmuls("X(m, k)", "Y(m, k)"), {});
  KernelPlan two = plan_gpu_kernel(other, recognize_idioms(other));
  EXPECT_FALSE(two.matmuls[1].shares_a_with_previous);
  EXPECT_EQ(why_not_shared_a(two, two.matmul_groups()[0], two.matmuls[1]), "it reads A = Y, not X");
  EXPECT_TRUE(shared_operand_loops(two).empty());
}

}  // namespace
}  // namespace polyfuse
