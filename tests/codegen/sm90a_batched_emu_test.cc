// Batched matmuls on the sm_90a TMA + wgmma kernel (issue 18 item 4), through the driver on the
// emulator against the exact reference: any number of leading batch indices on C, A and B (the
// batched operands' tensor maps are 3-d, dimension 2 the linearised batch), one operand without
// them (a matrix shared by the batch: a 2-d map), an epilogue indexed by a batch index; odd
// shapes (M, N, K not multiples of the tile), both consumer schedules, an operand copied by the
// producer warpgroup, a prologue on a batched operand. Few SMs, so that each persistent block walks tiles of several batch
// elements and the ring's phases carry from one batch element to the next.
#include <gtest/gtest.h>

#include "emu_harness.h"
#include "gemm_programs.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

struct Case {
  std::string source;
  SizeBindings sizes;
  std::uint64_t stored_bytes;  // only the live-outs: every element of them once
};

void check_batched(const Case& c, ConsumerSchedule consumers, unsigned sms) {
  EmulatedSms scoped(sms);
  Program program = compile_program(c.source, c.sizes);
  GpuOptions options = default_gpu_options(Arch::sm_90a);
  options.consumer_schedule = consumers;
  const EmuRun run = run_on_emulator(program, options);
  const std::string what = c.source + " " + to_string(consumers) + ": ";
  EXPECT_TRUE(run.check.ok) << what << run.check.to_string();
  EXPECT_GT(run.stats.counter("wgmma_instructions"), 0u) << what;
  EXPECT_GT(run.stats.counter("tma_bytes"), 0u) << what;
  EXPECT_EQ(run.stats.counter("global_bytes_stored"), c.stored_bytes) << what;
}

TEST(Sm90aBatchedEmu, BatchedExamplesTakeTmaWgmma) {
  const std::vector<Case> cases = {
      // batch 3, edge tiles in M and N, a K tail
      {example_source("batched_gemm"), {{"B", 3}, {"M", 67}, {"N", 136}, {"K", 200}}, 3u * 67 * 136 * 2},
      // two batch indices, linearised (6 batch elements)
      {example_source("multihead_batched_gemm"), {{"B", 2}, {"H", 3}, {"M", 37}, {"N", 72}, {"K", 40}}, 6u * 37 * 72 * 2},
  };
  for (const Case& c : cases)
    for (ConsumerSchedule consumers : {ConsumerSchedule::cooperative, ConsumerSchedule::pingpong}) check_batched(c, consumers, 2);
}

// A weight shared by the batch (B, or A), an epilogue reading bias(h, n) at a batch index, and
// N = 130 (B's rows 260 bytes apart: TMA cannot load it, the producer warpgroup copies it).
TEST(Sm90aBatchedEmu, SharedOperandsEpiloguesAndThreadCopies) {
  const std::vector<Case> cases = {
      {"def f(f16(B, M, K) A, f16(K, N) W) -> (f16(B, M, N) C) {\n  C(b, m, n) +=! A(b, m, k) * W(k, n)\n}\n",
       {{"B", 3}, {"M", 130}, {"N", 136}, {"K", 72}}, 3u * 130 * 136 * 2},
      {"def f(bf16(M, K) X, bf16(B, N, K) W, bf16(N) bias) -> (bf16(B, M, N) D) {\n  C(b, m, n) +=! X(m, k) * W(b, n, k)\n"
       "  D(b, m, n) = relu(C(b, m, n) + bias(n))\n}\n",
       {{"B", 3}, {"M", 65}, {"N", 72}, {"K", 136}}, 3u * 65 * 72 * 2},
      {"def f(f16(B, H, M, K) A, f16(B, H, K, N) W, f16(H, N) bias) -> (f16(B, H, M, N) D) {\n"
       "  C(b, h, m, n) +=! A(b, h, m, k) * W(b, h, k, n)\n  D(b, h, m, n) = tanh(C(b, h, m, n) + bias(h, n))\n}\n",
       {{"B", 2}, {"H", 3}, {"M", 33}, {"N", 24}, {"K", 64}}, 6u * 33 * 24 * 2},
      {example_source("batched_gemm"), {{"B", 3}, {"M", 70}, {"N", 130}, {"K", 72}}, 3u * 70 * 130 * 2},
  };
  // the schedules alternate (both run every case of the examples above)
  for (std::size_t i = 0; i < cases.size(); ++i)
    check_batched(cases[i], i % 2 ? ConsumerSchedule::pingpong : ConsumerSchedule::cooperative, 3);
}

// A prologue on a batched operand (no other tensors read): the producer's threads copy the batch
// element's matrix through it; on A, and on a batched B beside an A shared by the batch, with a
// bias indexed by the batch.
TEST(Sm90aBatchedEmu, ProloguesOnBatchedOperands) {
  const std::vector<Case> cases = {
      {"def f(f16(B, M, K) A, f16(B, K, N) W) -> (f16(B, M, N) C) {\n  C(b, m, n) +=! relu(A(b, m, k)) * W(b, k, n)\n}\n",
       {{"B", 3}, {"M", 67}, {"N", 136}, {"K", 200}}, 3u * 67 * 136 * 2},
      {"def f(f16(M, K) X, f16(B, N, K) W, f16(B, N) bias) -> (f16(B, M, N) D) {\n"
       "  C(b, m, n) +=! X(m, k) * max(W(b, n, k), 0)\n  D(b, m, n) = C(b, m, n) + bias(b, n)\n}\n",
       {{"B", 2}, {"M", 130}, {"N", 64}, {"K", 72}}, 2u * 130 * 64 * 2},
  };
  for (const Case& c : cases)
    for (ConsumerSchedule consumers : {ConsumerSchedule::cooperative, ConsumerSchedule::pingpong}) check_batched(c, consumers, 2);
}

}  // namespace
}  // namespace polyfuse
