// Prologues that read other tensors beside the operand (issue 22 item 1) on the emulator,
// against the reference evaluator: a dequantisation scale(k) inline and as a prologue
// statement, a row vector s(m), an elementwise Z(m, k), on A and on B, column-major
// operands (the broadcast runs along the tile's rows), a transposed read (element by
// element), at tile multiples and odd shapes. The operand tiles with their prologue
// operands are loaded once per block and k-step: the byte counters show it.
#include <gtest/gtest.h>

#include "codegen/cuda_emitter.h"
#include "emu_harness.h"
#include "gemm_programs.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

void expect_ok(const std::string& source, const SizeBindings& sizes) {
  Program program = compile_program(source, sizes);
  EmuRun run = run_on_emulator(program, small_tiles());
  EXPECT_TRUE(run.check.ok) << run.check.to_string() << "\n" << source;
  const std::int64_t m = sizes.at("M"), n = sizes.at("N");
  EXPECT_EQ(run.stats.counter("global_bytes_stored"), static_cast<std::uint64_t>(m * n * 2))
      << "only C is stored: the prologue's result stays on chip";
}

const SizeBindings tile_multiples{{"M", 128}, {"N", 64}, {"K", 96}};
const SizeBindings odd{{"M", 77}, {"N", 45}, {"K", 53}};

TEST(PrologueOperandsEmu, DequantExampleAtTileMultiplesAndOddShapes) {
  const std::string source = read_text_file(source_path("examples/dequant_gemm.tc"));
  expect_ok(source, tile_multiples);
  expect_ok(source, odd);
}

TEST(PrologueOperandsEmu, BroadcastInsideAnActivationInlineAndAsAStatement) {
  expect_ok("def f(f16(M, K) A, f16(K) g, f16(K, N) B) -> (f16(M, N) C) {\n"
            "  C(m, n) +=! relu(A(m, k) * g(k)) * B(k, n)\n}\n",
            odd);
  expect_ok("def f(f16(M, K) A, f16(K) g, f16(K, N) B) -> (f16(M, N) C) {\n"
            "  T(m, k) = relu(A(m, k) * g(k))\n"
            "  C(m, n) +=! T(m, k) * B(k, n)\n}\n",
            odd);
}

TEST(PrologueOperandsEmu, RowVectorAndElementwiseOperandsOnBothOperands) {
  expect_ok("def f(f16(M, K) A, f16(M) s, f16(M, K) Z, f16(K, N) B, f16(N) t) -> (f16(M, N) C) {\n"
            "  C(m, n) +=! (A(m, k) * s(m) + Z(m, k)) * (B(k, n) - t(n))\n}\n",
            odd);
}

TEST(PrologueOperandsEmu, ColumnMajorOperandsBroadcastAlongTileRows) {
  // A(k, m): the tile's rows are k, so g(k) is one value per row; B(n, k) with h(k) along its columns.
  expect_ok("def f(f16(K, M) A, f16(K) g, f16(N, K) B, f16(K) h) -> (f16(M, N) C) {\n"
            "  C(m, n) +=! (A(k, m) * g(k)) * (B(n, k) + h(k))\n}\n",
            odd);
}

TEST(PrologueOperandsEmu, TransposedOperandReadElementByElement) {
  expect_ok("def f(f16(M, K) A, f16(K, M) Zt, f16(K, N) B) -> (f16(M, N) C) {\n"
            "  C(m, n) +=! (A(m, k) + Zt(k, m)) * B(k, n)\n}\n",
            odd);
}

}  // namespace
}  // namespace polyfuse
