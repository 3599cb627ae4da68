// Several batch dimensions (issue 22 item 2) on the emulator, against the reference
// evaluator: linearised onto blockIdx.z, with an epilogue whose operands are indexed by a
// batch index, at odd shapes; bound and unbound sizes; an operand shared by the whole batch.
#include <gtest/gtest.h>

#include "codegen/cuda_emitter.h"
#include "emu_harness.h"
#include "gemm_programs.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

TEST(BatchDimsEmu, MultiheadExampleAtOddShapes) {
  Program program = compile_program(read_text_file(source_path("examples/multihead_batched_gemm.tc")),
                                    {{"B", 2}, {"H", 3}, {"M", 37}, {"N", 21}, {"K", 19}});
  EmuRun run = run_on_emulator(program, small_tiles());
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
  EXPECT_EQ(run.stats.counter("global_bytes_stored"), 2u * 3 * 37 * 21 * 2) << "C stored once";
}

TEST(BatchDimsEmu, ThreeBatchDimensionsWithABatchIndexedEpilogueUnboundSizes) {
  const std::string source =
      "def f(f16(B, H, G, M, K) A, f16(B, H, G, N, K) W, f16(H, N) bias) -> (f16(B, H, G, M, N) D) {\n"
      "  C(b, h, g, m, n) +=! A(b, h, g, m, k) * W(b, h, g, n, k)\n"
      "  D(b, h, g, m, n) = relu(C(b, h, g, m, n) + bias(h, n))\n}\n";
  const SizeBindings sizes{{"B", 2}, {"H", 2}, {"G", 2}, {"M", 33}, {"N", 17}, {"K", 40}};
  Program program = compile_program(source, sizes);
  Program unbound = compile_program(source);
  EXPECT_TRUE(run_on_emulator(program, small_tiles()).check.ok);
  EmuRun run = run_on_emulator(program, small_tiles(), 1, &unbound);
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
}

// An operand without the batch indices is the same matrix for every batch element: its
// tiles are read at the same place by the blocks of every blockIdx.z.
TEST(BatchDimsEmu, OperandSharedByTheWholeBatch) {
  const SizeBindings sizes{{"B", 3}, {"M", 37}, {"N", 21}, {"K", 19}};
  for (const char* source : {"def f(f16(B, M, K) A, f16(K, N) W) -> (f16(B, M, N) C) {\n"
                             "  C(b, m, n) +=! A(b, m, k) * W(k, n)\n}\n",
                             "def f(f16(M, K) X, f16(B, N, K) W, f16(N) bias) -> (f16(B, M, N) D) {\n"
                             "  C(b, m, n) +=! X(m, k) * W(b, n, k)\n  D(b, m, n) = relu(C(b, m, n) + bias(n))\n}\n"}) {
    EmuRun run = run_on_emulator(compile_program(source, sizes), small_tiles());
    EXPECT_TRUE(run.check.ok) << run.check.to_string() << "\n" << source;
  }
}

}  // namespace
}  // namespace polyfuse
