// Fused kernels (paper §VII-A) on the emulator against the reference evaluator: bias
// along n and along m, scaling, residual add, every activation, chains of 3+ operations,
// temporaries between epilogue statements, f16 and bf16, transposed operands, batches.
// The byte counters show that only the live-out tensor is stored and that A and B are
// loaded once per block per k-step.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "codegen/cuda_emitter.h"
#include "emu_harness.h"
#include "gemm_programs.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

void expect_ok(const std::string& source, const SizeBindings& sizes, const GpuOptions& options) {
  Program program = compile_program(source, sizes);
  EmuRun run = run_on_emulator(program, options);
  EXPECT_TRUE(run.check.ok) << run.check.to_string() << "\n" << source;
  std::int64_t m = sizes.at("M"), n = sizes.at("N");
  const LaunchStats::Buffer* d = run.stats.buffer("D");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->bytes_stored, static_cast<std::uint64_t>(m * n * 2)) << "D stored exactly once";
  EXPECT_EQ(run.stats.counter("global_bytes_stored"), static_cast<std::uint64_t>(m * n * 2)) << "only the live-out is stored";
}

const SizeBindings sizes{{"M", 128}, {"N", 128}, {"K", 64}};

TEST(FusedEmu, BiasAlongNThenRelu) {
  expect_ok(fused_source(", f16(N) bias", "  D(m, n) = relu(C(m, n) + bias(n))"), sizes, small_tiles());
}

TEST(FusedEmu, ScaleAlongM) {
  expect_ok(fused_source(", f16(M) scale", "  D(m, n) = C(m, n) * scale(m)"), sizes, small_tiles());
}

TEST(FusedEmu, ResidualAdd) {
  expect_ok(fused_source(", f16(M, N) R", "  D(m, n) = C(m, n) + R(m, n)"), sizes, small_tiles());
}

TEST(FusedEmu, EveryActivation) {
  for (const char* f : {"relu", "sigmoid", "tanh", "gelu", "exp", "gelu_erf", "gelu_tanh", "silu", "abs"})
    expect_ok(fused_source("", fmt::format("  D(m, n) = {}(C(m, n) * 0.25)", f)), sizes, small_tiles());
  // Functions of a restricted domain, on arguments inside it.
  for (const char* f : {"sqrt", "rsqrt", "log"})
    expect_ok(fused_source("", fmt::format("  D(m, n) = {}(abs(C(m, n)) * 0.25 + 1e-2)", f)), sizes, small_tiles());
  expect_ok(fused_source(", f16(N) bias", "  D(m, n) = max(C(m, n), bias(n)) - min(C(m, n), -0.5)"), sizes, small_tiles());
}

TEST(FusedEmu, ChainOfFourOperations) {
  expect_ok(fused_source(", f16(N) bias, f16(M) scale", "  D(m, n) = tanh(relu(C(m, n) + bias(n)) * scale(m)) / 2"), sizes,
            small_tiles());
}

TEST(FusedEmu, TemporaryBetweenEpilogueStatements) {
  expect_ok(fused_source(", f16(N) bias", "  T(m, n) = C(m, n) + bias(n)\n  D(m, n) = sigmoid(T(m, n)) * T(m, n)"), sizes,
            small_tiles());
}

TEST(FusedEmu, EpilogueOnPaperMacroMmaFragments) {
  for (MmaShape shape : {MmaShape::m16n16k8, MmaShape::m32n32k8}) {
    GpuOptions o = small_tiles();
    o.mma = shape;
    expect_ok(fused_source(", f16(N) bias, f16(M) scale", "  D(m, n) = relu(C(m, n) + bias(n)) * scale(m)"), sizes, o);
  }
}

TEST(FusedEmu, Bf16AndTransposedA) {
  expect_ok(fused_source(", bf16(N) bias", "  D(m, n) = relu(C(m, n) + bias(n))", "bf16", "(K, M) A", "A(k, m)"), sizes,
            small_tiles());
}

TEST(FusedEmu, BatchedWithEpilogue) {
  std::string source =
      "def f(f16(B, M, K) A, f16(B, K, N) W, f16(N) bias) -> (f16(B, M, N) D) {\n"
      "  C(b, m, n) +=! A(b, m, k) * W(b, k, n)\n"
      "  D(b, m, n) = relu(C(b, m, n) + bias(n))\n}\n";
  Program program = compile_program(source, {{"B", 3}, {"M", 64}, {"N", 128}, {"K", 64}});
  EmuRun run = run_on_emulator(program, small_tiles());
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
  EXPECT_EQ(run.stats.counter("global_bytes_stored"), 3u * 64 * 128 * 2);
}

// Split-K (§V-D2) with a fused epilogue: the k-splits' accumulators are added before the
// epilogue (relu of the sum, not the sum of relus), split 0 alone runs it and stores.
TEST(FusedEmu, SplitKWithAnEpilogue) {
  for (int split : {2, 4})
    for (MmaShape shape : {MmaShape::m16n8k16, MmaShape::m16n16k8}) {
      GpuOptions o = small_tiles();
      o.split_k = split;
      o.block.k = 16 * split;  // warp k 16: one k-slice per warp and k-step
      o.warp = {32, 32, 16};
      o.mma = shape;
      expect_ok(fused_source(", f16(N) bias", "  D(m, n) = relu(C(m, n) + bias(n))"), sizes, o);
      expect_ok(fused_source(", f16(M, N) R", "  D(m, n) = C(m, n) * 0.5 - R(m, n)"), {{"M", 100}, {"N", 77}, {"K", 200}}, o);
    }
}

TEST(FusedEmu, SplitKWithAnEpilogueAndTheMatmulResultLiveOut) {
  GpuOptions o = small_tiles();
  o.split_k = 2;
  o.warp = {32, 32, 16};
  std::string source =
      "def f(f16(M, K) A, f16(K, N) B, f16(N) bias) -> (f16(M, N) C, f16(M, N) D) {\n"
      "  C(m, n) +=! A(m, k) * B(k, n)\n  D(m, n) = relu(C(m, n) + bias(n))\n}\n";
  Program program = compile_program(source, {{"M", 96}, {"N", 72}, {"K", 136}});
  EmuRun run = run_on_emulator(program, o);
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
  EXPECT_EQ(run.stats.counter("global_bytes_stored"), 2u * 96 * 72 * 2) << "C and D, each stored once";
}

TEST(FusedEmu, LoadsEachInputTileOncePerBlockPerKStep) {
  Program program = compile_program(fused_source(", f16(N) bias", "  D(m, n) = relu(C(m, n) + bias(n))"),
                                    {{"M", 128}, {"N", 256}, {"K", 96}});
  EmuRun run = run_on_emulator(program, small_tiles());
  ASSERT_TRUE(run.check.ok) << run.check.to_string();
  // 2 x 4 blocks of 64x64; each loads its 64x32 A tile and 32x64 B tile at each of the 3
  // k-steps: A is read N/64 = 4 times, B M/64 = 2 times.
  EXPECT_EQ(run.stats.buffer("A")->bytes_loaded, 128u * 96 * 2 * 4);
  EXPECT_EQ(run.stats.buffer("B")->bytes_loaded, 96u * 256 * 2 * 2);
  EXPECT_EQ(run.stats.buffer("D")->bytes_loaded, 0u);
}

// Epilogue vectors (issue 19 item 4): bias(n) and scale(m) are loaded once per block tile
// into shared memory, not per accumulator element: each block reads its slice once.
TEST(FusedEmu, EpilogueVectorsLoadedOncePerBlockTile) {
  Program program = compile_program(read_text_file(source_path("examples/gemm_bias_relu.tc")),
                                    {{"M", 256}, {"N", 192}, {"K", 64}});
  EmuRun run = run_on_emulator(program, small_tiles());
  ASSERT_TRUE(run.check.ok) << run.check.to_string();
  // 4 tile rows of 64: each reads the whole bias once
  EXPECT_EQ(run.stats.buffer("bias")->bytes_loaded, 192u * 2 * 4) << run.stats.details();

  Program scaled = compile_program(fused_source(", f16(N) bias, f32(M) scale", "  D(m, n) = relu(C(m, n) + bias(n)) * scale(m)"),
                                   {{"M", 128}, {"N", 256}, {"K", 64}});
  EmuRun both = run_on_emulator(scaled, small_tiles());
  ASSERT_TRUE(both.check.ok) << both.check.to_string();
  EXPECT_EQ(both.stats.buffer("bias")->bytes_loaded, 256u * 2 * 2) << "2 tile rows";
  EXPECT_EQ(both.stats.buffer("scale")->bytes_loaded, 128u * 4 * 4) << "4 tile columns";
}

// Vectors a block's tile cuts (N, M not multiples of 8: the last chunk element by element,
// nothing past the end read), bound and symbolic sizes, odd K.
TEST(FusedEmu, EpilogueVectorsAtOddShapes) {
  const std::string source = fused_source(", bf16(N) bias, f32(M) scale", "  D(m, n) = gelu(C(m, n) * scale(m) + bias(n))");
  const SizeBindings odd{{"M", 77}, {"N", 45}, {"K", 33}};
  for (bool bound : {true, false}) {
    Program symbolic = compile_program(source);  // one kernel for every shape, sizes as arguments
    EmuRun run = run_on_emulator(compile_program(source, odd), small_tiles(), 1, bound ? nullptr : &symbolic);
    EXPECT_TRUE(run.check.ok) << run.check.to_string();
    EXPECT_EQ(run.stats.buffer("bias")->bytes_loaded, 45u * 2 * 2) << "2 tile rows";
    EXPECT_EQ(run.stats.buffer("scale")->bytes_loaded, 77u * 4 * 1) << "1 tile column";
  }
}

TEST(FusedEmu, GemmAloneStoresExactlyC) {
  Program program = compile_program(gemm_source("f16", true, true), {{"M", 128}, {"N", 64}, {"K", 64}});
  EmuRun run = run_on_emulator(program, small_tiles());
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
  EXPECT_EQ(run.stats.counter("global_bytes_stored"), 128u * 64 * 2);
}

}  // namespace
}  // namespace polyfuse

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

TEST(FusedEmu, TwoMatmulsFeedingAnAdd) {
  std::string source = read_text_file(source_path("examples/add_gemms.tc"));
  Program program = compile_program(source, {{"M", 128}, {"N", 128}, {"K", 64}});
  GpuOptions o;
  o.block = {64, 64, 32};
  o.warp = {32, 32, 32};
  EmuRun run = run_on_emulator(program, o);
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
  EXPECT_EQ(run.stats.counter("global_bytes_stored"), 128u * 128 * 2) << "only D is stored";
}

TEST(FusedEmu, TwoMatmulsWithDifferentReductionSizes) {
  std::string source =
      "def f(f16(M, K) A, f16(K, N) B, f16(L, M) E, f16(N, L) F) -> (bf16(M, N) D) {\n"
      "  X(m, n) +=! A(m, k) * B(k, n)\n"
      "  Y(m, n) +=! E(l, m) * F(n, l)\n"
      "  D(m, n) = sigmoid(X(m, n) - Y(m, n))\n}\n";
  Program program = compile_program(source, {{"M", 64}, {"N", 128}, {"K", 96}, {"L", 32}});
  GpuOptions o;
  o.block = {64, 64, 32};
  o.warp = {32, 32, 32};
  EmuRun run = run_on_emulator(program, o);
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
  EXPECT_EQ(run.stats.counter("global_bytes_stored"), 64u * 128 * 2);
}

}  // namespace
}  // namespace polyfuse

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

GpuOptions prologue_tiles() {
  GpuOptions o;
  o.block = {64, 64, 32};
  o.warp = {32, 32, 32};
  return o;
}

TEST(FusedEmu, PrologueStatementReluGemm) {
  Program program = compile_program(read_text_file(source_path("examples/relu_gemm.tc")), {{"M", 128}, {"N", 64}, {"K", 96}});
  EmuRun run = run_on_emulator(program, prologue_tiles());
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
  EXPECT_EQ(run.stats.counter("global_bytes_stored"), 128u * 64 * 2) << "the prologue's temporary is never stored";
}

TEST(FusedEmu, InlineProloguesOnBothOperandsWithAnEpilogue) {
  std::string source =
      "def f(f16(K, M) A, f16(N, K) B, f16(N) bias) -> (f16(M, N) D) {\n"
      "  C(m, n) +=! relu(A(k, m)) * tanh(B(n, k) * 2)\n"
      "  D(m, n) = C(m, n) + bias(n)\n}\n";
  Program program = compile_program(source, {{"M", 64}, {"N", 128}, {"K", 64}});
  EmuRun run = run_on_emulator(program, prologue_tiles());
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
}

TEST(FusedEmu, PrologueKeepsThePlainGemmSharedFootprint) {
  SizeBindings sizes{{"M", 256}, {"N", 256}, {"K", 256}};
  CudaEmitRequest request;  // the prologue rule's block tile (schedule/prologue_tile.h) for both
  request.options.block = {128, 256, 32};
  request.options.block_chosen = true;
  EmittedKernel plain = emit_cuda(compile_program(gemm_source("f16", true, true), sizes), request);
  EmittedKernel fused = emit_cuda(compile_program(read_text_file(source_path("examples/relu_gemm.tc")), sizes), request);
  EXPECT_EQ(fused.metadata.dynamic_shared_bytes, plain.metadata.dynamic_shared_bytes);
}

}  // namespace
}  // namespace polyfuse
