// The sm_90a kernel's fused epilogue in chunks of a row (codegen/hopper_epilogue.h, issue 18
// item 4): 128-bit stores of the live-outs, 128-bit loads of what the epilogue reads by (m, n),
// vectors read by the column index alone loaded once per tile, conflict-free reads of the
// staged accumulators; every other access (transposed reads, rows not 16-byte aligned, integer
// tensors, the edge chunks) element by element. On the emulator, against the exact reference, with
// its counters as the evidence.
#include <gtest/gtest.h>

#include "codegen/hopper_epilogue.h"
#include "emu_harness.h"
#include "gemm_programs.h"
#include "schedule/plan_from_program.h"
#include "schedule/program_plan.h"

#include <fmt/format.h>

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

EmuRun run_sm90a(const Program& program) {
  return run_on_emulator(program, default_gpu_options(Arch::sm_90a));
}

TEST(Sm90aEpilogueEmu, ChunksStoreAndLoad128BitsAndReadTheBiasOncePerTile) {
  const Program program = compile_program(example_source("gemm_bias_relu"), {{"M", 256}, {"N", 256}, {"K", 128}});
  const EmuRun run = run_sm90a(program);
  ASSERT_TRUE(run.check.ok) << run.check.to_string();
  ASSERT_GT(run.stats.counter("wgmma_instructions"), 0u);
  // 4 x 2 tiles of 64 x 128 (ping-pong: one consumer warpgroup a tile). A thread's 8 columns are
  // the same in each of its rows: each of the warpgroup's 8 rows of 16 threads loads the tile's
  // 128 bias values once (16 bytes a thread), 8 x 128 x 2 bytes a tile (element by element: 64 x 128 x 2).
  EXPECT_EQ(run.stats.buffer("bias")->bytes_loaded, 8u * (8 * 128 * 2)) << run.stats.details();
  EXPECT_EQ(run.stats.buffer("D")->bytes_stored, 256u * 256 * 2);
  // The only global requests (TMA loads A and B): D's stores, 512 bytes a warp-wide request
  // (32 lanes x 16 bytes), and the bias, one request a warp a tile (4 warps x 8 tiles).
  EXPECT_EQ(run.stats.counter("global_requests"), 256u * 256 * 2 / 512 + 4 * 8) << run.stats.details();
  // Shared memory: the 32 KB staging stores of a tile (stage_wg_acc, 2-way conflicts: 2048 over
  // the 8 tiles) and the epilogue's 16-byte reads of it, free of conflicts.
  EXPECT_EQ(run.stats.counter("shared_bank_conflicts"), 0u) << run.stats.details();
}

TEST(Sm90aEpilogueEmu, PlainStoreReadsTheStagingWithoutConflicts) {
  // No epilogue: store_wg_acc_staged<true> reads each 16-byte chunk's two halves in the order
  // free of conflicts; what is left is the staging's stores (as in the test above: 2048 over
  // 8 warpgroup tiles of 64 x 128). In order, the reads add 2048 more.
  const Program program = compile_program(example_source("gemm"), {{"M", 256}, {"N", 256}, {"K", 128}});
  const EmuRun run = run_sm90a(program);
  ASSERT_TRUE(run.check.ok) << run.check.to_string();
  ASSERT_GT(run.stats.counter("wgmma_instructions"), 0u);
  EXPECT_EQ(run.stats.counter("shared_bank_conflicts"), 0u) << run.stats.details();
  EXPECT_EQ(run.stats.counter("global_requests"), 256u * 256 * 2 / 512) << "C's stores, 16 bytes a lane";
}

TEST(Sm90aEpilogueEmu, EveryAccessFormAtOddShapes) {
  // scale(m): one value a row; bias(n): a chunk once per tile; R(m, n) f16: a chunk a row when N
  // is a multiple of 8, else element by element; T(m, n) f32: the same, N a multiple of 4; D f16
  // and E f32 stored the same ways. (Integer tensors and transposed reads never reach this kernel.)
  const std::string source =
      "def epilogue_forms(f16(M, K) A, f16(K, N) B, f32(M) scale, f16(N) bias, f16(M, N) R, f32(M, N) T)\n"
      "    -> (f16(M, N) D, f32(M, N) E) {\n"
      "  C(m, n) +=! A(m, k) * B(k, n)\n"
      "  D(m, n) = relu(C(m, n) * scale(m) + bias(n)) + R(m, n)\n"
      "  E(m, n) = D(m, n) * T(m, n)\n"
      "}\n";
  const std::vector<SizeBindings> shapes = {
      {{"M", 128}, {"N", 128}, {"K", 64}},  // whole chunks everywhere
      {{"M", 77}, {"N", 136}, {"K", 40}},   // rows past M; N a multiple of 8 (chunks), an edge tile
      {{"M", 70}, {"N", 36}, {"K", 24}},    // N a multiple of 4: E in chunks, D and R element by element
      {{"M", 33}, {"N", 45}, {"K", 16}},    // odd N: the last chunk of a row partly outside
  };
  for (const SizeBindings& sizes : shapes) {
    SCOPED_TRACE(fmt::format("M={} N={} K={}", sizes.at("M"), sizes.at("N"), sizes.at("K")));
    const Program program = compile_program(source, sizes);
    ASSERT_TRUE(plan_program(program, recognize_idioms(program)).is_single_fused_kernel());
    const EmuRun run = run_sm90a(program);
    EXPECT_TRUE(run.check.ok) << run.check.to_string();
    EXPECT_GT(run.stats.counter("wgmma_instructions"), 0u) << "the TMA + wgmma kernel";
    const std::uint64_t elements = static_cast<std::uint64_t>(sizes.at("M") * sizes.at("N"));
    EXPECT_EQ(run.stats.buffer("D")->bytes_stored, elements * 2) << "each element once, nothing outside";
    EXPECT_EQ(run.stats.buffer("E")->bytes_stored, elements * 4);
    EXPECT_EQ(run.stats.counter("global_bytes_stored"), elements * 6) << "only the outputs";
  }
}

TEST(Sm90aEpilogueEmu, ChunkColumnsFollowTheNarrowestTensorMovedInChunks) {
  const auto chunk = [](const std::string& source, const SizeBindings& sizes) {
    const Program program = compile_program(source, sizes);
    return hopper_epilogue_chunk(program, plan_gpu_kernel(program, recognize_idioms(program)));
  };
  const SizeBindings even = {{"M", 128}, {"N", 128}, {"K", 64}}, odd = {{"M", 128}, {"N", 45}, {"K", 64}};
  EXPECT_EQ(chunk(example_source("gemm_bias_relu"), even), 8) << "f16 D: 16 bytes of it";
  EXPECT_EQ(chunk(example_source("gemm_bias_relu"), odd), 8) << "the bias is still read in chunks";
  const std::string f32_out = "def f(f16(M, K) A, f16(K, N) B, f32(N) v) -> (f32(M, N) D) {\n"
                              "  C(m, n) +=! A(m, k) * B(k, n)\n  D(m, n) = C(m, n) + v(n)\n}\n";
  EXPECT_EQ(chunk(f32_out, even), 4) << "f32 only";
  const std::string relu = "def f(f16(M, K) A, f16(K, N) B) -> (f16(M, N) D) {\n"
                           "  C(m, n) +=! A(m, k) * B(k, n)\n  D(m, n) = relu(C(m, n))\n}\n";
  EXPECT_EQ(chunk(relu, even), 8);
  EXPECT_EQ(chunk(relu, odd), 4) << "D's rows not 16-byte aligned: nothing in chunks, the staged floats' 4";
}

}  // namespace
}  // namespace polyfuse
