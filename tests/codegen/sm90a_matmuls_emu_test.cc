// Several matmuls feeding one pointwise op on the sm_90a TMA + wgmma kernel (issue 18 item 4),
// through the driver on the emulator against the exact reference: two matmuls over the same
// output tiles and K in one k-loop, each with its own accumulator per consumer (BN = 64, so the
// two hold the single GEMM's 64 registers), the stage holding every operand's tile (X once for
// SwiGLU's two matmuls), the epilogue combining both; two whose results are added as one chained
// k-loop into one accumulator (the single GEMM's tiles; the first's k-blocks then the second's,
// equal or different K); odd shapes (edge tiles, K tails), both consumer schedules, few SMs
// (each persistent block walks several tiles), batched too. Only the live-out is stored.
#include <gtest/gtest.h>

#include "codegen/hopper_gemm_kernel.h"
#include "emu_harness.h"
#include "gemm_programs.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

struct Case {
  std::string source;
  SizeBindings sizes;
  std::uint64_t stored_bytes;  // only the live-out, each element once
  int a_tiles;                 // A tiles a stage holds (1: the matmuls share A)
  std::int64_t chained_k = 0;  // the second matmul's K when the two run chained into one accumulator
};

void check_matmuls(const Case& c, ConsumerSchedule consumers) {
  EmulatedSms scoped(3);
  Program program = compile_program(c.source, c.sizes);
  GpuOptions options = default_gpu_options(Arch::sm_90a);
  options.consumer_schedule = consumers;
  const EmuRun run = run_on_emulator(program, options);
  const std::string what = c.source + " " + to_string(consumers) + ": ";
  EXPECT_TRUE(run.check.ok) << what << run.check.to_string();
  EXPECT_EQ(run.stats.counter("global_bytes_stored"), c.stored_bytes) << what;
  // Every k-block of every tile: the A tiles and both B tiles by TMA, two wgmma k-blocks per
  // consumer; chained, the single GEMM's tiles over the k-blocks of both, one wgmma k-block each.
  const std::int64_t m = c.sizes.at("M"), n = c.sizes.at("N"), k = c.sizes.at("K");
  const std::int64_t batches = c.sizes.count("B") ? c.sizes.at("B") : 1;
  const int accumulators = c.chained_k ? 1 : 2;
  const HopperGemmTiles t = hopper_gemm_tiles(m, consumers, 2, accumulators, c.a_tiles);
  const std::int64_t k_blocks = (k + 63) / 64 + (c.chained_k + 63) / 64;
  const std::uint64_t tile_k_blocks = static_cast<std::uint64_t>(batches * hopper_tile_count(t, m, n) * k_blocks);
  EXPECT_EQ(run.stats.counter("tma_bytes"), tile_k_blocks * static_cast<std::uint64_t>(t.stage_bytes())) << what;
  EXPECT_EQ(run.stats.counter("wgmma_instructions"),
            tile_k_blocks * static_cast<std::uint64_t>(accumulators * 4 * t.tile_consumers()))
      << what;
}

TEST(Sm90aMatmulsEmu, AddGemmsAndSwigluTakeTmaWgmma) {
  const std::vector<Case> cases = {
      {example_source("add_gemms"), {{"M", 130}, {"N", 72}, {"K", 200}}, 130u * 72 * 2, 1, 200},
      // different K: 2 k-blocks of A * B, then 3 of E * F (a K tail each)
      {"def f(f16(M, K) A, f16(K, N) B, f16(M, L) E, f16(L, N) F, f16(N) bias) -> (f16(M, N) D) {\n"
       "  C1(m, n) +=! A(m, k) * B(k, n)\n  C2(m, n) +=! E(m, l) * F(l, n)\n  D(m, n) = relu(C1(m, n) + C2(m, n) + bias(n))\n}\n",
       {{"M", 130}, {"N", 72}, {"K", 72}, {"L", 136}}, 130u * 72 * 2, 1, 136},
      {example_source("swiglu"), {{"M", 67}, {"N", 136}, {"K", 72}}, 67u * 136 * 2, 1},
  };
  for (const Case& c : cases)
    for (ConsumerSchedule consumers : {ConsumerSchedule::cooperative, ConsumerSchedule::pingpong}) check_matmuls(c, consumers);
}

// bf16 with a bias and an activation after the sum (B and F in different layouts: two
// accumulators); a batched SwiGLU whose weights are shared
// by the batch; a matmul's result live out beside the combination (both stored).
TEST(Sm90aMatmulsEmu, EpiloguesAndBatches) {
  const std::vector<Case> cases = {
      {"def f(bf16(M, K) A, bf16(N, K) B, bf16(M, K) E, bf16(K, N) F, bf16(N) bias) -> (bf16(M, N) D) {\n"
       "  C1(m, n) +=! A(m, k) * B(n, k)\n  C2(m, n) +=! E(m, k) * F(k, n)\n  D(m, n) = relu(C1(m, n) + C2(m, n) + bias(n))\n}\n",
       {{"M", 65}, {"N", 88}, {"K", 136}}, 65u * 88 * 2, 2},
      {"def f(f16(B, M, K) X, f16(K, N) Wg, f16(K, N) Wu) -> (f16(B, M, N) H) {\n  G(b, m, n) +=! X(b, m, k) * Wg(k, n)\n"
       "  U(b, m, n) +=! X(b, m, k) * Wu(k, n)\n  H(b, m, n) = silu(G(b, m, n)) * U(b, m, n)\n}\n",
       {{"B", 3}, {"M", 37}, {"N", 72}, {"K", 64}}, 3u * 37 * 72 * 2, 1},
      {"def f(f16(M, K) A, f16(K, N) B, f16(M, K) E, f16(K, N) F) -> (f16(M, N) C1, f16(M, N) D) {\n"
       "  C1(m, n) +=! A(m, k) * B(k, n)\n  C2(m, n) +=! E(m, k) * F(k, n)\n  D(m, n) = C1(m, n) * C2(m, n)\n}\n",
       {{"M", 70}, {"N", 72}, {"K", 72}}, 2u * 70 * 72 * 2, 2},
      // chained, bf16, both A column-major (M-major tiles) and both B K-major, different K
      {"def f(bf16(K, M) A, bf16(N, K) B, bf16(L, M) E, bf16(N, L) F) -> (bf16(M, N) D) {\n"
       "  C1(m, n) +=! A(k, m) * B(n, k)\n  C2(m, n) +=! E(l, m) * F(n, l)\n  D(m, n) = tanh(C2(m, n) + C1(m, n))\n}\n",
       {{"M", 72}, {"N", 136}, {"K", 64}, {"L", 200}}, 72u * 136 * 2, 1, 200},
  };
  for (const Case& c : cases)
    for (ConsumerSchedule consumers : {ConsumerSchedule::cooperative, ConsumerSchedule::pingpong}) check_matmuls(c, consumers);
}

}  // namespace
}  // namespace polyfuse
