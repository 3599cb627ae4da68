// --arch sm_90a through the driver (run_program) on the emulator, f16 and bf16: shapes whose
// operands TMA can load take the TMA + wgmma main loop (A and B reach the kernel as tensor
// maps the runtime encodes; the counters show wgmma and TMA), shapes where TMA can load only one
// operand copy the other by threads (issue 17's done-when: M = 300, N = 257, K = 128), the others
// the mma.sync fallback (M = 300, N = 257, K = 129; also odd shapes, primes, tile +- 1).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>

#include "codegen/main_loop_choice.h"
#include "emu_harness.h"
#include "frontend/idioms.h"
#include "gemm_programs.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

void check_sm90a(const std::string& type, int m, int n, int k, bool tma, bool a_row = true, bool b_row = true) {
  Program program = compile_program(gemm_source(type, a_row, b_row), {{"M", m}, {"N", n}, {"K", k}});
  GpuOptions options = default_gpu_options(Arch::sm_90a);
  const EmuRun run = run_on_emulator(program, options);
  const std::string what =
      fmt::format("{} A({}) B({}) M={} N={} K={}: ", type, a_row ? "m, k" : "k, m", b_row ? "k, n" : "n, k", m, n, k);
  EXPECT_TRUE(run.check.ok) << what << run.check.to_string();
  EXPECT_EQ(run.stats.counter("wgmma_instructions") > 0, tma) << what;
  EXPECT_EQ(run.stats.counter("tma_bytes") > 0, tma) << what;
}

TEST(Sm90aEmu, AlignedShapesTakeTmaWgmma) {
  for (const char* type : {"f16", "bf16"})
    for (auto [m, n, k] : {std::array{1, 8, 8}, std::array{300, 256, 128}, std::array{67, 136, 200},
                           std::array{63, 120, 56}, std::array{129, 264, 328}})
      check_sm90a(type, m, n, k, true);
}

// One operand TMA cannot load (B with N = 257, A with K = 37): the threads copy it, TMA the other.
TEST(Sm90aEmu, OneUnalignedOperandIsCopiedByThreads) {
  for (const char* type : {"f16", "bf16"})
    for (auto [m, n, k] : {std::array{300, 257, 128}, std::array{67, 64, 37}})
      check_sm90a(type, m, n, k, true);
}

// The four layouts: A(m, k) or A(k, m), B(k, n) or B(n, k) — TMA boxes of the tensors as
// stored, M/N-major wgmma tiles for the m/n-contiguous ones; aligned, one operand copied by
// threads (an odd extent along its contiguous dimension), and edge tiles with a K tail.
TEST(Sm90aEmu, EveryLayoutTakesTmaWgmma) {
  for (bool a_row : {true, false})
    for (bool b_row : {true, false}) check_sm90a("f16", 72, 136, 200, true, a_row, b_row);
  check_sm90a("bf16", 66, 136, 128, true, false, true);   // A(k, m): rows of 66, copied by threads
  check_sm90a("bf16", 64, 136, 131, true, false, false);  // B(n, k): rows of 131, copied by threads
  check_sm90a("bf16", 67, 130, 128, true, true, false);   // neither: edge tiles in M and N
}

// Pointwise epilogues on the TMA + wgmma loop (on the staged accumulators, in chunks of a row): bias
// along columns and rows, a full matrix, every activation, temporaries, the matmul result live
// out too, f32 outputs, an operand copied by threads; odd shapes with edge tiles; cooperative and
// ping-pong consumers.
TEST(Sm90aEmu, EpiloguesTakeTmaWgmma) {
  struct Case {
    std::string inputs, epilogue;
    const char* type = "f16";
    SizeBindings sizes = {{"M", 130}, {"N", 136}, {"K", 72}};
  };
  const std::vector<Case> cases = {
      {", f16(N) bias", "  D(m, n) = relu(C(m, n) + bias(n))"},
      {", f16(N) bias, f16(M) scale", "  D(m, n) = tanh(relu(C(m, n) + bias(n)) * scale(m)) / 2"},
      {", f16(M, N) R", "  D(m, n) = C(m, n) * 0.5 - R(m, n)", "f16", {{"M", 67}, {"N", 77}, {"K", 128}}},
      {", bf16(N) bias", "  T(m, n) = C(m, n) + bias(n)\n  D(m, n) = sigmoid(T(m, n)) * T(m, n)", "bf16"},
      {"", "  D(m, n) = gelu(C(m, n) * 0.25) + exp(C(m, n) * 0.125)", "f16", {{"M", 1}, {"N", 8}, {"K", 9}}},
  };
  // Both consumer schedules (the default rule takes ping-pong for these epilogues when M > 64).
  for (const Case& c : cases)
    for (ConsumerSchedule consumers : {ConsumerSchedule::cooperative, ConsumerSchedule::pingpong}) {
      Program program = compile_program(fused_source(c.inputs, c.epilogue, c.type), c.sizes);
      GpuOptions options = default_gpu_options(Arch::sm_90a);
      options.consumer_schedule = consumers;
      const EmuRun run = run_on_emulator(program, options);
      EXPECT_TRUE(run.check.ok) << c.epilogue << " " << to_string(consumers) << ": " << run.check.to_string();
      EXPECT_GT(run.stats.counter("wgmma_instructions"), 0u) << c.epilogue;
    }
  // C live out beside D, and an f32 output.
  for (const char* source : {"def f(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C, f16(M, N) D) {\n  C(m, n) +=! A(m, k) * B(k, n)\n"
                             "  D(m, n) = relu(C(m, n))\n}\n",
                             "def f(bf16(M, K) A, bf16(K, N) B, f32(N) bias) -> (f32(M, N) D) {\n  C(m, n) +=! A(m, k) * B(k, n)\n"
                             "  D(m, n) = C(m, n) + bias(n)\n}\n"}) {
    Program program = compile_program(source, {{"M", 70}, {"N", 130}, {"K", 64}});
    const EmuRun run = run_on_emulator(program, default_gpu_options(Arch::sm_90a));
    EXPECT_TRUE(run.check.ok) << source << run.check.to_string();
    EXPECT_GT(run.stats.counter("wgmma_instructions"), 0u) << source;
  }
}

struct ProgramCase {
  std::string source;
  SizeBindings sizes;
};

// Each case takes the TMA + wgmma loop, TMA loading an operand, and matches the reference.
void expect_tma_wgmma_runs(const std::vector<ProgramCase>& cases) {
  for (const ProgramCase& c : cases) {
    Program program = compile_program(c.source, c.sizes);
    const EmuRun run = run_on_emulator(program, default_gpu_options(Arch::sm_90a));
    EXPECT_TRUE(run.check.ok) << c.source << run.check.to_string();
    EXPECT_GT(run.stats.counter("wgmma_instructions"), 0u) << c.source;
    EXPECT_GT(run.stats.counter("tma_bytes"), 0u) << c.source;
  }
}

// exp on A(m, k), and sigmoid on B(k, n) beside an M-major A: prologues whose value at 0 is not 0.
const char* const kExpOfA =
    "def f(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n  E(m, k) = exp(A(m, k) * 0.5)\n  C(m, n) +=! E(m, k) * B(k, n)\n}\n";
const char* const kSigmoidOfB =
    "def f(bf16(K, M) A, bf16(K, N) B) -> (bf16(M, N) C) {\n  S(k, n) = sigmoid(B(k, n))\n  C(m, n) +=! A(k, m) * S(k, n)\n}\n";

// Operand prologues on the TMA + wgmma loop: applied by the producer's threads where TMA loaded
// the operand (relu_gemm: K = 72, the last case: K = 136), or, where TMA cannot load it (K = 37,
// N = 130), by the threads that copy it (TMA loads the other); elements past the matrix stay
// zero (exp(0) = 1 must not leak into the K tail); A or B, both layouts, f16 and bf16.
TEST(Sm90aEmu, ProloguesAreAppliedInPlaceOrByTheCopyingThreads) {
  expect_tma_wgmma_runs({
      {example_source("relu_gemm"), {{"M", 130}, {"N", 136}, {"K", 72}}},
      {kExpOfA, {{"M", 67}, {"N", 64}, {"K", 37}}},
      {kSigmoidOfB, {{"M", 64}, {"N", 130}, {"K", 200}}},
      {"def f(f16(M, K) A, f16(N, K) B, f16(N) bias) -> (f16(M, N) D) {\n  R(m, k) = relu(A(m, k))\n"
       "  C(m, n) +=! R(m, k) * B(n, k)\n  D(m, n) = C(m, n) + bias(n)\n}\n", {{"M", 129}, {"N", 72}, {"K", 136}}},
      // in place beside the K tail TMA zero-filled (K = 200: 8 columns of the last k-block), which
      // the transform leaves alone: exp(0) = 1 there would not show (B's tail is zero too), but
      // 1 / 0 would (inf x 0: NaN), K = 40
      {kExpOfA, {{"M", 67}, {"N", 64}, {"K", 200}}},
      {"def f(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n  E(m, k) = 1 / A(m, k)\n"
       "  C(m, n) +=! E(m, k) * B(k, n)\n}\n", {{"M", 67}, {"N", 64}, {"K", 40}}},
      // in place on MN-major tiles: B(k, n) of two 64-column boxes, A(k, m) scaled along its rows (k)
      {kSigmoidOfB, {{"M", 64}, {"N", 136}, {"K", 200}}},
      {"def f(f16(K, M) A, f16(K) s, f16(K, N) B) -> (f16(M, N) C) {\n  C(m, n) +=! (A(k, m) * s(k)) * B(k, n)\n}\n",
       {{"M", 136}, {"N", 64}, {"K", 200}}},
      // batched: the batch element's tile by a 3-d TMA box, transformed where it landed
      {"def f(f16(B, M, K) A, f16(B, K, N) W) -> (f16(B, M, N) C) {\n  C(b, m, n) +=! relu(A(b, m, k)) * W(b, k, n)\n}\n",
       {{"B", 3}, {"M", 67}, {"N", 136}, {"K", 200}}},
      {"def f(f16(K, M) A, f16(B, K, N) W) -> (f16(B, M, N) C) {\n  C(b, m, n) +=! A(k, m) * sigmoid(W(b, k, n))\n}\n",
       {{"B", 3}, {"M", 72}, {"N", 136}, {"K", 200}}},
  });
  // which way each went
  const auto copy_of = [](const std::string& source, const SizeBindings& sizes) {
    const Program program = compile_program(source, sizes);
    return choose_main_loop(program, plan_gpu_kernel(program, recognize_idioms(program)), default_gpu_options(Arch::sm_90a));
  };
  EXPECT_EQ(copy_of(example_source("relu_gemm"), {{"M", 130}, {"N", 136}, {"K", 72}}).a_copy, OperandCopy::tma_prologue);
  EXPECT_EQ(copy_of(example_source("relu_gemm"), {{"M", 130}, {"N", 136}, {"K", 37}}).a_copy, OperandCopy::threads);
}

// Prologues that read other tensors (issue 18 item 4): the copying threads load them at each
// element's coordinates in the source as stored (prologue_at; the column operands below): a dequantisation's scale(k)
// (examples/dequant_gemm.tc), a scale along the rows of A, a full matrix beside A, B's columns
// scaled with B(n, k) stored column-major, A(k, m) scaled along k; edge tiles and K tails.
TEST(Sm90aEmu, PrologueOperandsAreReadByTheCopyingThreads) {
  expect_tma_wgmma_runs({
      {example_source("dequant_gemm"), {{"M", 130}, {"N", 136}, {"K", 200}}},
      {example_source("dequant_gemm"), {{"M", 67}, {"N", 72}, {"K", 37}}},
      {"def f(f16(M, K) A, f16(M) s, f16(M, K) Z, f16(K, N) B) -> (f16(M, N) C) {\n"
       "  C(m, n) +=! relu(A(m, k) * s(m) + Z(m, k)) * B(k, n)\n}\n", {{"M", 65}, {"N", 136}, {"K", 72}}},
      {"def f(bf16(M, K) A, bf16(N, K) B, bf16(N) s) -> (bf16(M, N) C) {\n  C(m, n) +=! A(m, k) * (B(n, k) * s(n))\n}\n",
       {{"M", 129}, {"N", 66}, {"K", 136}}},
      {"def f(f16(K, M) A, f16(K) s, f16(K, N) B) -> (f16(M, N) C) {\n  C(m, n) +=! (A(k, m) * s(k)) * B(k, n)\n}\n",
       {{"M", 66}, {"N", 64}, {"K", 200}}},
  });
}

// Operands read by the column alone of the copied source (scale(k) of A(m, k), s(n) of B(k, n);
// of the operand's type) are loaded 8 columns at a time, once per chunk column a thread copies
// (prologue_columns); beside an operand read at both coordinates, two of them, edge tiles and K
// tails (the last chunk partly outside).
TEST(Sm90aEmu, ColumnOperandsOfAPrologueAreLoadedOncePerChunkColumn) {
  expect_tma_wgmma_runs({
      {"def f(f16(M, K) A, f16(K) zero, f16(K) scale, f16(M, K) Z, f16(K, N) B) -> (f16(M, N) C) {\n"
       "  C(m, n) +=! ((A(m, k) - zero(k)) * scale(k) + Z(m, k)) * B(k, n)\n}\n", {{"M", 130}, {"N", 136}, {"K", 200}}},
      {"def f(bf16(M, K) A, bf16(K) scale, bf16(K, N) B) -> (bf16(M, N) C) {\n  C(m, n) +=! A(m, k) * scale(k) * B(k, n)\n}\n",
       {{"M", 67}, {"N", 72}, {"K", 61}}},
      {"def f(f16(M, K) A, f16(K, N) B, f16(N) s) -> (f16(M, N) C) {\n  C(m, n) +=! A(m, k) * (B(k, n) * s(n))\n}\n",
       {{"M", 129}, {"N", 66}, {"K", 136}}},
  });
  // 128 x 128 x 128: one 128 x 128 tile, two k-blocks of A (128 x 64) loaded by TMA and
  // transformed by the producer's 96 threads of warps 1 .. 3, 10 or 11 chunks each, all in the
  // thread's chunk column: one 16-byte load of scale per thread and k-block (element by element:
  // 128 x 64 x 2 bytes a k-block).
  const Program program = compile_program(example_source("dequant_gemm"), {{"M", 128}, {"N", 128}, {"K", 128}});
  const EmuRun run = run_on_emulator(program, default_gpu_options(Arch::sm_90a));
  ASSERT_TRUE(run.check.ok) << run.check.to_string();
  EXPECT_EQ(run.stats.buffer("scale")->bytes_loaded, 2u * 96 * 16) << run.stats.details();
  EXPECT_EQ(run.stats.counter("tma_bytes"), 2u * (128 * 64 + 64 * 128) * 2) << "A and B by TMA: " << run.stats.details();
  // K = 130 (rows of 260 bytes): TMA cannot load A, the producer's 128 threads copy it through
  // the prologue, the same one load of scale per thread and k-block; in the third k-block only
  // the 16 threads of chunk column 128 load, its 2 columns inside K.
  const Program odd = compile_program(example_source("dequant_gemm"), {{"M", 128}, {"N", 128}, {"K", 130}});
  const EmuRun odd_run = run_on_emulator(odd, default_gpu_options(Arch::sm_90a));
  ASSERT_TRUE(odd_run.check.ok) << odd_run.check.to_string();
  EXPECT_EQ(odd_run.stats.buffer("scale")->bytes_loaded, 2u * 128 * 16 + 16 * 2 * 2) << odd_run.stats.details();
  EXPECT_EQ(odd_run.stats.counter("tma_bytes"), 3u * 64 * 128 * 2) << "B alone by TMA: " << odd_run.stats.details();
}

TEST(Sm90aEmu, TwoUnalignedOperandsFallBackToMmaSync) {
  for (const char* type : {"f16", "bf16"})
    for (auto [m, n, k] : {std::array{300, 257, 129}, std::array{1, 1, 1}, std::array{7, 13, 5}})
      check_sm90a(type, m, n, k, false);
}

}  // namespace
}  // namespace polyfuse
