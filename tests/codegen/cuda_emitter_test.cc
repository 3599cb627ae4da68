// Golden CUDA for the examples (helpers not embedded, so the diff shows the kernel) and
// the emitter's errors.
#include <gtest/gtest.h>

#include "codegen/cuda_emitter.h"
#include "frontend/diagnostics.h"
#include "gemm_programs.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

EmittedKernel emit_example(const std::string& example, const SizeBindings& sizes, const GpuOptions& options) {
  SourceFile source = read_source_file(source_path("examples/" + example));
  source.name = "examples/" + example;
  Program program = compile_source(source, sizes).programs.at(0);
  CudaEmitRequest request;
  request.options = options;
  request.helpers = CudaEmitRequest::Helpers::include;
  return emit_cuda(program, request);
}

TEST(CudaEmitter, GemmGoldenSymbolicSizes) {
  EXPECT_TRUE(matches_golden(emit_example("gemm.tc", {}, GpuOptions{}).source, "codegen/gemm.cu"));
}

TEST(CudaEmitter, GemmGoldenBoundSizesSplitK2) {
  GpuOptions o;
  o.split_k = 2;
  o.warp = {64, 64, 16};
  EXPECT_TRUE(matches_golden(emit_example("gemm.tc", {{"M", 4096}, {"N", 4096}, {"K", 4096}}, o).source,
                             "codegen/gemm_4096_splitk2.cu"));
}

// One golden .cu per fused idiom (the examples), sizes bound, default options.
TEST(CudaEmitter, EveryExampleGolden) {
  SizeBindings sizes{{"M", 1024}, {"N", 512}, {"K", 256}, {"B", 4}};
  for (const char* example :
       {"gemm_bias_relu", "relu_gemm", "dequant_gemm", "add_gemms", "swiglu", "batched_gemm", "multihead_batched_gemm",
        "gemm_f32"}) {
    GpuOptions options;
    options.choose_warp = true;
    EXPECT_TRUE(matches_golden(emit_example(std::string(example) + ".tc", sizes, options).source,
                               std::string("codegen/") + example + ".cu"))
        << example;
  }
}

// GEMM + softmax as one kernel: the row chain on the accumulator fragments after the k-steps
// (block tile 64x128 spanning the row of 128; default choices).
TEST(CudaEmitter, FusedRowChainGolden) {
  GpuOptions o = default_gpu_options(Arch::sm_80);
  o.choose_warp = true;
  EXPECT_TRUE(matches_golden(emit_example("gemm_softmax.tc", {{"M", 1000}, {"N", 128}, {"K", 256}}, o).source,
                             "codegen/gemm_softmax_fused.cu"));
}

// Split-K with a fused epilogue: reduce_split_k after the k-steps, then split 0 alone runs
// the epilogue and stores.
TEST(CudaEmitter, SplitKWithAnEpilogueGolden) {
  GpuOptions o;
  o.choose_warp = true;
  o.split_k = 2;
  o.warp.k = 16;
  EXPECT_TRUE(matches_golden(emit_example("gemm_bias_relu.tc", {{"M", 1024}, {"N", 512}, {"K", 256}}, o).source,
                             "codegen/gemm_bias_relu_splitk2.cu"));
}

TEST(CudaEmitter, PartialTilesRoundTheGridUp) {
  EmittedKernel kernel = emit_example("gemm.tc", {{"M", 1000}, {"N", 77}, {"K", 33}}, GpuOptions{});
  EXPECT_EQ(kernel.metadata.grid[0].value, 1);  // ceil(77 / 128)
  EXPECT_EQ(kernel.metadata.grid[1].value, 8);  // ceil(1000 / 128)
  EXPECT_EQ(kernel.metadata.grid[2].value, 1);
}

// The text between two markers of the kernel ("" when `from` is missing).
std::string between(const std::string& text, const std::string& from, const std::string& to) {
  size_t begin = text.find(from);
  if (begin == std::string::npos) return "";
  size_t end = text.find(to, begin);
  return text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Full tiles keep the fast path: blocks whose tile lies inside every tensor run an AST
// generated for them (constant loop bounds, no predicate in any copy, load or store).
TEST(CudaEmitter, FullBlocksRunAnUnpredicatedBody) {
  GpuOptions o;
  o.choose_warp = true;
  std::string cu = emit_example("gemm_bias_relu.tc", {{"M", 1000}, {"N", 300}, {"K", 64}}, o).source;
  EXPECT_NE(cu.find("if (tile.row <= 6 && tile.col <= 1) {"), std::string::npos) << cu;
  std::string full = between(cu, "// a full block", "} else {");
  std::string edge = between(cu, "// a block at the edge", "#if defined");
  ASSERT_FALSE(full.empty());
  ASSERT_FALSE(edge.empty());
  for (const char* predicate : {"pf::Check::rows", "pf::Check::cols", "pf::Check::all", "pf::imin", "if (4 * tile"})
    EXPECT_EQ(full.find(predicate), std::string::npos) << predicate << " in the full blocks' body:\n" << full;
  EXPECT_EQ(count(full, "pf::Check::none"), 5);  // 2 + 2 tile copies, the store
  // the bias: staged once per block before both bodies (N = 300 cuts the last block's
  // slice), read from shared memory in each
  EXPECT_NE(cu.find("pf::stage_vector<128, 128, pf::Check::cols>(smem + "), std::string::npos) << cu;
  EXPECT_EQ(count(full, "pf::load_staged_cols(bias_values1, smem + "), 1) << full;
  EXPECT_EQ(count(edge, "pf::load_staged_cols(bias_values1, smem + "), 1) << edge;
  EXPECT_NE(edge.find("pf::Check::all"), std::string::npos);
  EXPECT_NE(edge.find("pf::imin"), std::string::npos);
}

// K = 4104 = 128 k-steps of 32 and 8: in a full block, k-steps 0..126 (whose own and
// prefetched tiles lie inside K) form a loop of their own without checks; 127 (prefetching
// the partial tile) and 128 (the partial one) follow.
TEST(CudaEmitter, FullKStepsAreIsolatedFromTheKTail) {
  std::string cu = emit_example("gemm.tc", {{"M", 4000}, {"N", 4000}, {"K", 4104}}, GpuOptions{}).source;
  std::string full = between(cu, "// a full block", "} else {");
  std::string loop = between(full, "for (int k_step = 0; k_step <= 126; ++k_step) {", "for (int k_step = 127; k_step <= 128; ++k_step) {");
  ASSERT_FALSE(loop.empty()) << full;
  EXPECT_EQ(count(loop, "pf::Check::none"), 2);
  EXPECT_EQ(loop.find("pf::Check::cols"), std::string::npos);
  EXPECT_EQ(loop.find("pf::Check::rows"), std::string::npos);
  std::string tail = between(full, "for (int k_step = 127; k_step <= 128; ++k_step) {", "pf::store_accumulators");
  EXPECT_NE(tail.find("pf::Check::cols"), std::string::npos);  // A's columns cut at K
  EXPECT_NE(tail.find("pf::Check::rows"), std::string::npos);  // B's rows cut at K
}

// The whole kernel for sizes that are multiples of nothing: full blocks (with their full
// k-steps isolated from the K tail) and edge blocks, access widths from 2K and 2N bytes.
TEST(CudaEmitter, PartialTilesGolden) {
  EXPECT_TRUE(matches_golden(emit_example("gemm.tc", {{"M", 1000}, {"N", 300}, {"K", 100}}, GpuOptions{}).source,
                             "codegen/gemm_1000x300x100.cu"));
}

// The same with a ring of 4 stages: K = 100 is 4 k-steps, the prologue copies 3 of them.
TEST(CudaEmitter, PartialTilesRingOf4StagesGolden) {
  GpuOptions o;
  o.stages = 4;
  EXPECT_TRUE(matches_golden(emit_example("gemm.tc", {{"M", 1000}, {"N", 300}, {"K", 100}}, o).source,
                             "codegen/gemm_1000x300x100_stages4.cu"));
}

TEST(CudaEmitter, SizesThatAreMultiplesOfTheTileHaveOnlyTheFastPath) {
  GpuOptions o;
  o.choose_warp = true;
  std::string cu = emit_example("gemm_bias_relu.tc", {{"M", 256}, {"N", 256}, {"K", 256}}, o).source;
  EXPECT_EQ(cu.find("a block at the edge"), std::string::npos);
  EXPECT_EQ(cu.find("pf::imin"), std::string::npos);
  for (const char* predicate : {"pf::Check::rows", "pf::Check::cols", "pf::Check::all"})
    EXPECT_EQ(cu.find(predicate), std::string::npos) << predicate;
}

TEST(CudaEmitter, WhenNoBlockIsFullThereIsOnlyTheEdgeBody) {
  std::string cu = emit_example("gemm.tc", {{"M", 1000}, {"N", 77}, {"K", 33}}, GpuOptions{}).source;
  EXPECT_EQ(cu.find("a full block"), std::string::npos);
  EXPECT_NE(cu.find("pf::Check::all"), std::string::npos);
}

// The width of global accesses is chosen when the kernel is generated, from the leading
// dimension: rows of 2*K bytes for A (K x f16), 2*N for B and C.
TEST(CudaEmitter, AccessWidthsFollowTheLeadingDimensions) {
  auto widths = [](const SizeBindings& sizes) {
    std::string cu = emit_example("gemm.tc", sizes, GpuOptions{}).source;
    std::string a = between(cu, "pf::cp_async_tile", "(smem");
    std::string b = between(cu, "pf::cp_async_tile", "(smem + 16384");
    b = b.substr(b.rfind("pf::cp_async_tile"));
    std::string c = between(cu, "pf::store_accumulators", "(acc");
    auto width = [](const std::string& call) { return call.substr(call.find("pf::Width::")); };
    return width(a) + " " + width(b) + " " + width(c);
  };
  EXPECT_EQ(widths({{"M", 256}, {"N", 256}, {"K", 256}}), "pf::Width::b128> pf::Width::b128> pf::Width::b128>");
  EXPECT_EQ(widths({{"M", 256}, {"N", 66}, {"K", 36}}), "pf::Width::b64> pf::Width::b32> pf::Width::b32>");
  EXPECT_EQ(widths({{"M", 256}, {"N", 77}, {"K", 33}}), "pf::Width::b16> pf::Width::b16> pf::Width::b16>");
  EXPECT_EQ(widths({}), "pf::Width::by_address> pf::Width::by_address> pf::Width::by_address>");
}

// Sizes are int32 (the front end refuses larger ones); every element offset is computed in
// 64-bit arithmetic, so tensors of more than 2^31 elements index correctly.
TEST(CudaEmitter, OffsetsOfLargeTensorsAre64Bit) {
  std::string cu = emit_example("gemm.tc", {{"M", 65536}, {"N", 65536}, {"K", 65536}}, GpuOptions{}).source;
  EXPECT_NE(cu.find("C + ((long long)(128 * tile.row + 64 * warp_y)) * 65536"), std::string::npos);
  EXPECT_NE(cu.find("A + (long long)(128 * tile.row) * 65536"), std::string::npos);
  EXPECT_NE(cu.find("B + ((long long)(32 * k_step + 32)) * 65536"), std::string::npos);
}

// The options a row chain in the epilogue cannot honour are refused, named: a block tile
// narrower than the row, split-K, the m8n8k4 macro-MMAs.
TEST(CudaEmitter, FusedRowChainRefusesOptionsItCannotHonour) {
  const SizeBindings sizes{{"M", 64}, {"N", 128}, {"K", 64}};
  GpuOptions narrow;
  narrow.block = {128, 64, 32};
  narrow.warp = {64, 32, 32};
  GpuOptions split;
  split.split_k = 2;
  split.warp = {64, 64, 16};
  GpuOptions m884;
  m884.mma = MmaShape::m16n16k8;
  // The default block tile set by the user (--block 128x128x32) is theirs: kept, and refused
  // for a row of 200 columns, not silently replaced by one that spans it.
  const SizeBindings wide{{"M", 64}, {"N", 200}, {"K", 64}};
  GpuChoices chosen;
  chosen.block = GpuOptions{}.block;
  try {
    emit_example("gemm_softmax.tc", wide, gpu_options_from_choices(chosen));
    ADD_FAILURE() << "the default block, set by the user, was replaced";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "block 128x128x32: the row chain S1, S2, S3, S4 runs in the matmul kernel when one block "
                           "tile spans the row of 200 columns; use a block N of at least 200 or leave block unset");
  }
  EXPECT_NO_THROW(emit_example("gemm_softmax.tc", wide, gpu_options_from_choices(GpuChoices{})));
  const std::pair<GpuOptions, const char*> cases[] = {
      {narrow, "block 128x64x32: the row chain S1, S2, S3, S4 runs in the matmul kernel when one block tile spans "
               "the row of 128 columns; use a block N of at least 128 or leave block unset"},
      {split, "split_k 2: the row chain S1, S2, S3, S4 runs on the accumulator fragments of one warp per tile; use "
              "split_k=1"},
      {m884, "mma 16x16x8: the row chain S1, S2, S3, S4 runs on m16n8k16 accumulator fragments; use mma=m16n8k16"}};
  for (const auto& c : cases) {
    try {
      emit_example("gemm_softmax.tc", sizes, c.first);
      ADD_FAILURE() << "no error: " << c.second;
    } catch (const UserError& e) {
      EXPECT_STREQ(e.what(), c.second);
    }
  }
}

TEST(CudaEmitter, GridsBeyondCudaLimitsAreRefused) {
  try {
    emit_example("gemm.tc", {{"M", 10000000}, {"N", 64}, {"K", 64}}, GpuOptions{});
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(e.diagnostics().front().line, 4);
    EXPECT_STREQ(e.what(), "statement S0 of def 'gemm': the grid needs 78125 blocks along y (10000000 / 128), but CUDA "
                           "allows at most 65535: use a larger block tile");
  }
  try {
    emit_example("batched_gemm.tc", {{"B", 70000}, {"M", 64}, {"N", 64}, {"K", 64}}, GpuOptions{});
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "statement S0 of def 'batched_gemm': the grid needs 70000 blocks along z (70000 batch "
                           "elements), but CUDA allows at most 65535 batches per launch: split the batch");
  }
  try {  // several batch dimensions share blockIdx.z
    emit_example("multihead_batched_gemm.tc", {{"B", 300}, {"H", 300}, {"M", 64}, {"N", 64}, {"K", 64}}, GpuOptions{});
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(e.diagnostics().front().line, 5);
    EXPECT_STREQ(e.what(), "statement S0 of def 'multihead_batched_gemm': the grid needs 90000 blocks along z (300 x 300 "
                           "batch elements), but CUDA allows at most 65535 batches per launch: split the batch");
  }
}

TEST(CudaEmitter, RejectsInvalidOptions) {
  GpuOptions o;
  o.block = {128, 128, 32};
  o.warp = {128, 128, 32};
  EXPECT_THROW(emit_example("gemm.tc", {}, o), UserError);
}

}  // namespace
}  // namespace polyfuse
