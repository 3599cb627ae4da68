// Prologues on the landed tile (schedule/copies.h's landed_prologue; issue 19): the operand is
// copied by cp.async and each thread maps its own chunks in shared memory between the ring's
// wait and its barrier, packed in pairs where that gives the f32 lambda's values
// (codegen/packed_prologue.h). On the emulator against the exact reference: on A and on B,
// row- and column-major, f16 and bf16, with and without operands, packed and not, rings of 1
// to 4 stages, the prologue rule's 128x256 block (default options) and odd shapes with K tails.
#include <gtest/gtest.h>

#include "codegen/cuda_emitter.h"
#include "emu_harness.h"
#include "gemm_programs.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

const SizeBindings odd{{"M", 77}, {"N", 45}, {"K", 53}};

GpuOptions tiles_with_stages(int stages) {
  GpuOptions o = small_tiles();
  o.stages = stages;
  return o;
}

// Runs `source` at `sizes` and checks it; `landed` the text its kernel must hold (the map of
// the landed tile, packed or not).
void expect_ok(const std::string& source, const SizeBindings& sizes, const GpuOptions& o, const std::string& landed) {
  Program program = compile_program(source, sizes);
  CudaEmitRequest request;
  request.options = o;
  const std::string text = emit_cuda(program, request).source;
  EXPECT_NE(text.find(landed), std::string::npos) << "expected `" << landed << "` in\n" << text;
  EXPECT_EQ(text.find("pf::map_tile_regs"), std::string::npos) << "no prologue in registers:\n" << text;
  EmuRun run = run_on_emulator(program, o);
  EXPECT_TRUE(run.check.ok) << run.check.to_string() << "\n" << source;
  EXPECT_EQ(run.stats.counter("global_bytes_stored"), static_cast<std::uint64_t>(sizes.at("M") * sizes.at("N") * 2))
      << "only C is stored";
}

const std::string packed_map = "true>(";       // map_tile_shared<..., PACKED = true>
const std::string element_map = "false";      // map_tile_shared<..., PACKED = false...>

TEST(LandedPrologueEmu, ReluOnAEveryRingDepthAtOddShapes) {
  const std::string source = read_text_file(source_path("examples/relu_gemm.tc"));
  for (int stages = 1; stages <= 4; ++stages) {
    SCOPED_TRACE(stages);
    expect_ok(source, odd, tiles_with_stages(stages), "[](unsigned x) { return pf::x2::relu<__half>(x); }");
  }
}

TEST(LandedPrologueEmu, DequantScaleOnAEveryRingDepthAtOddShapes) {
  const std::string source = read_text_file(source_path("examples/dequant_gemm.tc"));
  for (int stages = 1; stages <= 4; ++stages) {
    SCOPED_TRACE(stages);
    expect_ok(source, odd, tiles_with_stages(stages), "pf::x2::mul<__half>(x, scale_k)");
  }
}

TEST(LandedPrologueEmu, Bf16RowScaleOnColumnMajorA) {
  // A(k, m): the tile's rows are k, s(m) runs along its columns.
  expect_ok("def f(bf16(K, M) A, bf16(M) s, bf16(K, N) B) -> (f16(M, N) C) {\n"
            "  C(m, n) +=! relu(A(k, m) * s(m)) * B(k, n)\n}\n",
            odd, tiles_with_stages(2), "pf::x2::relu<__nv_bfloat16>(pf::x2::mul<__nv_bfloat16>(x, s_m))");
}

TEST(LandedPrologueEmu, PrologueOnBOnlyRowAndColumnMajor) {
  expect_ok("def f(f16(M, K) A, f16(K, N) B, f16(N) t) -> (f16(M, N) C) {\n"
            "  C(m, n) +=! A(m, k) * (B(k, n) - t(n))\n}\n",
            odd, tiles_with_stages(3), "pf::x2::sub<__half>(x, t_n)");
  expect_ok("def f(f16(M, K) A, f16(N, K) B, f16(K) h) -> (f16(M, N) C) {\n"
            "  C(m, n) +=! A(m, k) * max(B(n, k), h(k))\n}\n",
            odd, tiles_with_stages(2), "pf::x2::max<__half>(x, h_k)");
}

TEST(LandedPrologueEmu, ElementByElementWhereRoundingsWouldDiffer) {
  // two roundings (x * s, then + z) and exp: the f32 lambda, element by element, in shared memory
  expect_ok("def f(f16(M, K) A, f16(K) s, f16(M, K) Z, f16(K, N) B) -> (f16(M, N) C) {\n"
            "  C(m, n) +=! (A(m, k) * s(k) + Z(m, k)) * B(k, n)\n}\n",
            odd, tiles_with_stages(2), element_map);
  expect_ok("def f(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
            "  C(m, n) +=! exp(A(m, k)) * B(k, n)\n}\n",
            odd, tiles_with_stages(4), "pf::op::exp(x)");
}

TEST(LandedPrologueEmu, ThePrologueRuleBlockWithDefaultOptions) {
  // the rule's 128x256 block (8 warps): a full block and edge blocks with a K tail
  const std::string source = read_text_file(source_path("examples/dequant_gemm.tc"));
  GpuOptions o;
  expect_ok(source, {{"M", 200}, {"N", 300}, {"K", 72}}, o, packed_map);
  Program program = compile_program(source, {{"M", 200}, {"N", 300}, {"K", 72}});
  CudaEmitRequest request;
  EXPECT_EQ(emit_cuda(program, request).metadata.block[0], 256) << "eight warps";
}

}  // namespace
}  // namespace polyfuse
