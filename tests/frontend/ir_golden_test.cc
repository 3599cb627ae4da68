// Golden IR dumps (polyfuse compile --emit=ir) of every example, whole-file diffs.
// UPDATE_GOLDEN=1 rewrites tests/golden/frontend/*.ir.
#include <gtest/gtest.h>

#include "frontend/frontend.h"
#include "frontend/ir_printer.h"
#include "support/conv_shapes.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

std::string dump(const std::string& example, const SizeBindings& sizes = {}) {
  SourceFile source = read_source_file(polyfuse::testing::source_path("examples/" + example + ".tc"));
  source.name = "examples/" + example + ".tc";  // stable name in the dump
  FrontendResult result = compile_source(source, sizes);
  std::string text;
  for (const Program& program : result.programs) text += print_program(program);
  return text;
}

class ExampleIr : public ::testing::TestWithParam<std::string> {};

TEST_P(ExampleIr, MatchesGolden) {
  EXPECT_TRUE(polyfuse::testing::matches_golden(dump(GetParam()), "frontend/" + GetParam() + ".ir"));
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleIr,
                         ::testing::Values("gemm", "gemm_bias_relu", "relu_gemm", "add_gemms",
                                           "batched_gemm", "brgemm", "gemm_f32", "gemm_fp8"));

// The row reductions of issue 20 (the compilers refuse them until kernel plans exist;
// tests/tools/cli_reductions_test.cc checks that). layernorm and rmsnorm divide by the size
// N, which must be bound.
INSTANTIATE_TEST_SUITE_P(RowReductions, ExampleIr,
                         ::testing::Values("gemm_softmax", "softmax", "cross_entropy"));

TEST(ExampleIrBound, NormsWithTheirRowSizeBound) {
  EXPECT_TRUE(polyfuse::testing::matches_golden(dump("layernorm", {{"N", 256}}), "frontend/layernorm.ir"));
  EXPECT_TRUE(polyfuse::testing::matches_golden(dump("rmsnorm", {{"N", 256}}), "frontend/rmsnorm.ir"));
  EXPECT_TRUE(polyfuse::testing::matches_golden(dump("layernorm_rows", {{"N", 256}}), "frontend/layernorm_rows.ir"));
}

// Attention: its scale 1 / sqrt(D) (D bound: a size used as a value) and its 1 / z(b, s)
// taken out of the sums (frontend/matmul_factors.h).
TEST(ExampleIrBound, Attention) {
  EXPECT_TRUE(polyfuse::testing::matches_golden(dump("attention", {{"D", 64}}), "frontend/attention.ir"));
  // the causal mask: a comparison of the two indices, t and s, as values
  EXPECT_TRUE(polyfuse::testing::matches_golden(dump("causal_attention", {{"D", 64}}), "frontend/causal_attention.ir"));
}

TEST(ExampleIrBound, GemmBiasReluWithSizes) {
  EXPECT_TRUE(polyfuse::testing::matches_golden(
      dump("gemm_bias_relu", {{"M", 128}, {"N", 256}, {"K", 64}}), "frontend/gemm_bias_relu_bound.ir"));
}

// The convolutions (issue 24) at the first shape of tests/support/conv_shapes.h: conv2d's and
// conv2d_grouped's output sizes are inferred ranges (H - R + 1), which need bound sizes.
TEST(ExampleIrBound, Convolutions) {
  for (const polyfuse::testing::ConvCase& c : polyfuse::testing::conv_cases()) {
    if (c.sizes.at("N") != 2) continue;  // one shape each
    SCOPED_TRACE(c.example);
    EXPECT_TRUE(polyfuse::testing::matches_golden(dump(c.example, c.sizes), "frontend/" + c.example + ".ir"));
  }
}

// A matmul's terms times values along the sum (frontend/matmul_factors.h): the matmul into an
// f32 temporary, then the factors in a pointwise statement; the same for contractions that are
// not matmuls as written ((B, S, H, D) tensors, K shared by the heads).
TEST(ExampleIrBound, ScaledMatmulsAreTheMatmulThenTheFactors) {
  const SourceFile source{"scaled_matmuls.tc", R"(def scaled(f16(B, S, D) Q, f16(B, T, D) K, f16(B, T, D) V, f32(B, S) z) -> (f16(B, S, T) L, f16(B, S, D) O) {
  L(b, s, t) +=! Q(b, s, d) * K(b, t, d) * 0.125
  O(b, s, d) +=! L(b, s, t) * V(b, t, d) / z(b, s)
}
def contractions(f16(B, S, H, D) Q, f16(B, T, D) K, f16(B, T, H, D) V, f32(B, H, S) z) -> (f16(B, H, S, T) L, f16(B, S, H, D) O) {
  L(b, h, s, t) +=! Q(b, s, h, d) * K(b, t, d) * 0.125
  O(b, s, h, d) +=! L(b, h, s, t) * V(b, t, h, d) / z(b, h, s)
}
)"};
  std::string text;
  for (const Program& program : compile_source(source, {{"B", 2}, {"S", 16}, {"T", 24}, {"D", 8}, {"H", 3}}).programs)
    text += print_program(program);
  EXPECT_TRUE(polyfuse::testing::matches_golden(text, "frontend/scaled_matmuls.ir"));
}

TEST(ExampleIr, PrintingIsDeterministic) {
  EXPECT_EQ(dump("add_gemms"), dump("add_gemms"));
}

}  // namespace
}  // namespace polyfuse
