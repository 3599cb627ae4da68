// The convolution idioms of polyfuse-bench (issue 24 item 4) without a GPU: the layer table
// (ResNet-50's layers, output sizes with stride and padding, FLOP counts, implicit GEMM
// sizes), the .tc programs and their size bindings, the host reference against polyfuse's
// reference evaluator (every idiom, odd sizes, stride 2, 1x1, C = 3), the output checks on
// a convolution's output, and the summary of a plan text (polyfuse_path).
#include <gtest/gtest.h>

#include <stdexcept>

#include "bench/gpu/checks.h"
#include "bench/gpu/conv_idioms.h"
#include "bench/gpu/conv_reference.h"
#include "bench/gpu/polyfuse_path.h"
#include "frontend/frontend.h"
#include "runtime/reference/element_rounding.h"
#include "runtime/reference/evaluate.h"

namespace polyfuse::bench {
namespace {

const ConvShape& layer(const std::vector<ConvShape>& layers, const std::string& name) {
  for (const ConvShape& shape : layers)
    if (shape.name == name) return shape;
  throw std::out_of_range(name);
}

TEST(BenchConvShapes, ResNet50LayersAtTheBatch) {
  const std::vector<ConvShape> layers = resnet50_conv_layers(32);
  ASSERT_EQ(layers.size(), 10u);
  int three = 0, one = 0;
  for (const ConvShape& shape : layers) {
    EXPECT_EQ(shape.n, 32) << shape.name;
    three += shape.r == 3;
    one += shape.r == 1;
  }
  EXPECT_EQ(three, 5);  // each stage's 3x3, and stage 3's strided one
  EXPECT_EQ(one, 5);
  const ConvShape& res2 = layer(layers, "res2 3x3");
  EXPECT_EQ(res2.p(), 56);  // padding 1 keeps the size
  EXPECT_EQ(res2.q(), 56);
  EXPECT_TRUE(res2.same());
  EXPECT_DOUBLE_EQ(res2.flops(), 7398752256.0);  // 2 * N * P * Q * K * R * S * C
  EXPECT_EQ(res2.gemm(), (ProblemSize{32 * 56 * 56, 64, 9 * 64, 1}));
  const ConvShape& strided = layer(layers, "res3 3x3 s2");
  EXPECT_EQ(strided.p(), 28);  // (56 + 2 - 3) / 2 + 1
  EXPECT_FALSE(strided.same());
  const ConvShape& res5 = layer(layers, "res5 1x1");
  EXPECT_EQ(res5.p(), 7);
  EXPECT_EQ(res5.gemm(), (ProblemSize{32 * 49, 512, 2048, 1}));
  EXPECT_EQ(describe(strided), "N32 56x56 C128 K128 3x3 s2 p1");
  EXPECT_EQ(resnet50_conv_layers(128).front().n, 128);
}

// ResNeXt-50 (32x4d)'s grouped 3x3 layers: one GEMM per group (the implicit GEMM's batch).
TEST(BenchConvShapes, ResNeXt50GroupedLayers) {
  const std::vector<ConvShape> layers = resnext50_grouped_layers(32);
  ASSERT_EQ(layers.size(), 5u);
  for (const ConvShape& shape : layers) EXPECT_EQ(shape.groups, 32) << shape.name;
  const ConvShape& rx3 = layer(layers, "rx3 3x3 g32");
  EXPECT_EQ(rx3.gemm(), (ProblemSize{32 * 28 * 28, 8, 9 * 8, 32}));
  EXPECT_DOUBLE_EQ(rx3.flops(), 2.0 * 32 * 28 * 28 * 256 * 9 * 8);
  EXPECT_EQ(describe(rx3), "N32 28x28 C256 K256 3x3 s1 p1 g32");
  EXPECT_EQ(layer(layers, "rx3 3x3 g32 s2").p(), 28);
  EXPECT_EQ(layer(layers, "rx5 3x3 g32").gemm().n, 32);
}

TEST(BenchConvShapes, RunLayersAddTheFirstLayerAnOddOneAndTheGroupedOnes) {
  const std::vector<ConvShape> all = conv_layers(false, 128);
  ASSERT_EQ(all.size(), 17u);
  EXPECT_EQ(all.back().name, "rx5 3x3 g32");
  EXPECT_EQ(all.back().n, 128);
  const ConvShape& first = layer(all, "conv1 7x7 s2");
  EXPECT_EQ(first.n, 128);
  EXPECT_EQ(first.c, 3);
  EXPECT_EQ(first.p(), 112);  // (224 + 6 - 7) / 2 + 1
  EXPECT_EQ(first.q(), 112);
  EXPECT_EQ(first.gemm().k, 7 * 7 * 3);
  const ConvShape& odd = layer(all, "odd 3x3");
  EXPECT_EQ(odd.n, 3);  // fixed: small at any batch
  EXPECT_EQ(odd.p(), 19);
  EXPECT_EQ(odd.q(), 23);
  const std::vector<ConvShape> quick = conv_layers(true, 32);
  ASSERT_EQ(quick.size(), 5u);
  EXPECT_EQ(quick[0].name, "res2 3x3");
  EXPECT_EQ(quick[1].name, "res4 1x1");
  EXPECT_EQ(quick[2].name, "conv1 7x7 s2");
  EXPECT_EQ(quick[3].name, "odd 3x3");
  EXPECT_EQ(quick[4].name, "rx3 3x3 g32");
}

TEST(BenchConvIdioms, ResidualOnlyOnSameLayersWithKEqualC) {
  ASSERT_EQ(conv_idioms().size(), 5u);
  const ConvIdiom& residual = *find_conv_idiom("conv_bias_residual_relu");
  EXPECT_EQ(find_conv_idiom("gemm"), nullptr);
  std::vector<std::string> applies;
  for (const ConvShape& shape : conv_layers(false, 32))
    if (conv_applies(residual, shape)) applies.push_back(shape.name);
  EXPECT_EQ(applies, (std::vector<std::string>{"res2 3x3", "res3 3x3", "res4 3x3", "res5 3x3"}));
  // the grouped idioms on the grouped layers, the others on the others
  for (const ConvShape& shape : conv_layers(false, 32)) {
    EXPECT_EQ(conv_applies(*find_conv_idiom("conv"), shape), shape.groups == 1) << shape.name;
    EXPECT_EQ(conv_applies(*find_conv_idiom("conv_grouped_bias_relu"), shape), shape.groups > 1) << shape.name;
  }
  EXPECT_THROW(conv_source(residual, layer(conv_layers(false, 32), "res3 3x3 s2"), DType::f16), std::invalid_argument);
}

TEST(BenchConvIdioms, ProgramsAndBindings) {
  const std::vector<ConvShape> layers = conv_layers(false, 32);
  EXPECT_EQ(conv_source(*find_conv_idiom("conv_bias_relu"), layer(layers, "res3 3x3 s2"), DType::f16),
            "def conv_bias_relu(f16(N, H, W, C) I, f16(K, R, R, C) F, f16(K) bias) -> (f16(N, P, Q, K) O) {\n"
            "  Y(n, h, w, k) +=! I(n, 2*h + r - 1, 2*w + s - 1, c) * F(k, r, s, c) where h in 0:P, w in 0:Q, "
            "I = 0 outside\n"
            "  O(n, h, w, k) = relu(Y(n, h, w, k) + bias(k))\n}\n");
  EXPECT_EQ(conv_source(*find_conv_idiom("conv"), layer(layers, "res4 1x1"), DType::bf16),
            "def conv(bf16(N, H, W, C) I, bf16(K, C) F) -> (bf16(N, H, W, K) O) {\n"
            "  O(n, h, w, k) +=! I(n, h, w, c) * F(k, c)\n}\n");
  const std::string residual = conv_source(*find_conv_idiom("conv_bias_residual_relu"), layer(layers, "res2 3x3"),
                                           DType::f16);
  EXPECT_NE(residual.find("f16(C, R, R, C) F, f16(C) bias) -> (f16(N, H, W, C) O)"), std::string::npos) << residual;
  EXPECT_NE(residual.find("relu(Y(n, h, w, k) + bias(k) + I(n, h, w, k))"), std::string::npos) << residual;
  using Bindings = std::vector<std::pair<std::string, std::int64_t>>;
  const ConvShape& one = layer(layers, "res4 1x1");
  EXPECT_EQ(conv_size_bindings(one, conv_source(*find_conv_idiom("conv"), one, DType::f16)),
            (Bindings{{"N", 32}, {"H", 14}, {"W", 14}, {"C", 1024}, {"K", 256}}));
  const ConvShape& first = layer(layers, "conv1 7x7 s2");
  EXPECT_EQ(conv_size_bindings(first, conv_source(*find_conv_idiom("conv"), first, DType::f16)),
            (Bindings{{"N", 32}, {"H", 224}, {"W", 224}, {"C", 3}, {"K", 64}, {"R", 7}, {"P", 112}, {"Q", 112}}));
  std::vector<std::string> names;
  for (const TensorSpec& spec : conv_tensors(*find_conv_idiom("conv_bias_relu"), first)) names.push_back(spec.name);
  EXPECT_EQ(names, (std::vector<std::string>{"I", "F", "bias", "O"}));
  EXPECT_EQ(conv_tensors(*find_conv_idiom("conv"), first).back().shape, (std::vector<std::int64_t>{32, 112, 112, 64}));
  // grouped: g before each channel, a group's channels bound as C and K
  const ConvShape& grouped = layer(layers, "rx3 3x3 g32 s2");
  const std::string grouped_source = conv_source(*find_conv_idiom("conv_grouped_bias_relu"), grouped, DType::f16);
  EXPECT_EQ(grouped_source,
            "def conv_grouped_bias_relu(f16(N, H, W, G, C) I, f16(G, K, R, R, C) F, f16(G, K) bias) -> (f16(N, P, Q, G, K) O) {\n"
            "  Y(n, h, w, g, k) +=! I(n, 2*h + r - 1, 2*w + s - 1, g, c) * F(g, k, r, s, c) where h in 0:P, w in 0:Q, "
            "I = 0 outside\n"
            "  O(n, h, w, g, k) = relu(Y(n, h, w, g, k) + bias(g, k))\n}\n");
  EXPECT_EQ(conv_size_bindings(grouped, grouped_source),
            (Bindings{{"N", 32}, {"H", 56}, {"W", 56}, {"C", 8}, {"K", 8}, {"R", 3}, {"P", 28}, {"Q", 28}, {"G", 32}}));
  EXPECT_EQ(conv_tensors(*find_conv_idiom("conv_grouped"), grouped)[1].shape, (std::vector<std::int64_t>{256, 3, 3, 8}));
  EXPECT_FALSE(conv_applies(*find_conv_idiom("conv_bias_residual_relu"), layer(layers, "rx3 3x3 g32")));
}

// conv_reference_element == reference::evaluate of the idiom's .tc on the same inputs, every
// element, at odd sizes: stride 2 with C = 3, a 1x1 layer, a "same" layer with K = C, and 3
// groups of 2 input and 3 output channels, stride 2.
TEST(BenchConvReference, MatchesTheReferenceEvaluator) {
  const std::vector<ConvShape> shapes = {{"C=3 s2", 2, 11, 9, 3, 5, 3, 2, 1},
                                         {"1x1", 1, 5, 7, 13, 6, 1, 1, 0},
                                         {"same", 2, 7, 5, 9, 9, 3, 1, 1},
                                         {"7x7 s2", 1, 13, 12, 3, 4, 7, 2, 3},
                                         {"grouped s2", 2, 9, 7, 6, 9, 3, 2, 1, 3}};
  int compared = 0;
  for (const ConvShape& shape : shapes) {
    for (const ConvIdiom& idiom : conv_idioms()) {
      if (!conv_applies(idiom, shape)) continue;
      for (DType dtype : all_dtypes()) {
        SCOPED_TRACE(shape.name + " " + idiom.name + " " + to_string(dtype));
        const std::string source = conv_source(idiom, shape, dtype);
        SizeBindings sizes;
        for (const auto& size : conv_size_bindings(shape, source)) sizes[size.first] = size.second;
        const Program program = compile_source(SourceFile{idiom.name + ".tc", source}, sizes).programs.at(0);
        const HostProblem host = make_conv_problem(idiom, shape, dtype, 5);
        reference::TensorData data;
        for (const auto& entry : host.values) data[entry.first] = entry.second;
        const std::int64_t elements = conv_tensors(idiom, shape).back().elements();
        data["O"] = std::vector<float>(static_cast<size_t>(elements), 0.0f);
        reference::evaluate(program, data);
        const std::vector<float>& o = data.at("O");
        ASSERT_EQ(static_cast<std::int64_t>(o.size()), elements);
        int mismatches = 0, nonzero = 0;
        for (std::int64_t i = 0; i < elements; ++i) {
          const float mine = conv_reference_element(idiom, shape, dtype, host, i);
          const float theirs = o[static_cast<size_t>(i)];
          nonzero += theirs != 0;
          if (std::abs(mine - theirs) > 1e-6f + 2 * reference::unit_roundoff(element_type(dtype)) * std::abs(theirs))
            ++mismatches;
        }
        EXPECT_EQ(mismatches, 0);
        EXPECT_GT(nonzero, elements / 4);
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, (4 * 2 + 1 + 2) * 2);  // the residual on the "same" shape only, the grouped idioms on the grouped one
}

TEST(BenchConvChecks, CatchWrongNaNAndMissingElements) {
  const ConvShape shape{"small", 2, 6, 5, 7, 4, 3, 2, 1};
  const ConvIdiom& idiom = *find_conv_idiom("conv_bias_relu");
  const HostProblem host = make_conv_problem(idiom, shape, DType::f16, 2);
  const std::int64_t elements = shape.n * shape.p() * shape.q() * shape.k;
  std::vector<std::uint16_t> exact;
  for (std::int64_t i = 0; i < elements; ++i)
    exact.push_back(reference::to_bits(ElementType::f16, conv_reference_element(idiom, shape, DType::f16, host, i)));
  const std::vector<std::int64_t> indices = sample_indices(elements, 1 << 20, 1);  // all of them
  std::vector<float> expected;
  for (std::int64_t i : indices) expected.push_back(conv_reference_element(idiom, shape, DType::f16, host, i));
  EXPECT_TRUE(check_conv_against_reference(shape, DType::f16, exact, indices, expected).ok);
  EXPECT_TRUE(check_conv_against_variant(shape, DType::f16, exact, exact).ok);

  std::vector<std::uint16_t> wrong = exact;
  const std::int64_t at = ((1 * shape.p() + 2) * shape.q() + 1) * shape.k + 3;  // O[1, 2, 1, 3]
  wrong[static_cast<size_t>(at)] = reference::to_bits(ElementType::f16, expected[static_cast<size_t>(at)] + 0.5f);
  const CheckOutcome outcome = check_conv_against_reference(shape, DType::f16, wrong, indices, expected);
  EXPECT_FALSE(outcome.ok);
  EXPECT_EQ(outcome.failures, 1);
  EXPECT_NE(outcome.to_string().find("O[1, 2, 1, 3]"), std::string::npos) << outcome.to_string();
  EXPECT_FALSE(check_conv_against_variant(shape, DType::f16, wrong, exact).ok);
  std::vector<std::uint16_t> poisoned = exact;
  poisoned.back() = 0xFFFF;  // NaN: an element the variant did not write
  EXPECT_FALSE(check_conv_against_reference(shape, DType::f16, poisoned, indices, expected).ok);
  // The tolerance grows with the reduction R * S * C.
  EXPECT_GT(conv_tolerance(ConvShape{"", 1, 8, 8, 512, 8, 3, 1, 1}, DType::f16, 1).absolute,
            conv_tolerance(ConvShape{"", 1, 8, 8, 3, 8, 3, 1, 1}, DType::f16, 1).absolute);
}

TEST(BenchPolyfusePath, SummarisesAPlan) {
  EXPECT_EQ(polyfuse_path("plan of def conv2d_bias_relu: 2 kernels, workspace of 10496 bytes\n"
                          "kernel 0 conv2d_bias_relu_k0 (row reduction)\n"
                          "  S0 (Y(n, h, w, k) +=! I(n, h + r - 1, w + s - 1, c) * F(k, r, s, c))\n"
                          "kernel 1 conv2d_bias_relu_k1 (pointwise)\n"
                          "  S1 (O(n, h, w, k) = relu(Y(n, h, w, k) + bias(k)))\n"),
            "2 kernels (row reduction, pointwise), workspace of 10496 bytes");
  EXPECT_EQ(polyfuse_path("plan of def conv: 1 kernel, no workspace\nkernel 0 conv (fused matmul)\n  S0 (...)\n"),
            "1 kernel (fused matmul), no workspace");
  EXPECT_EQ(polyfuse_path("not a plan"), "plan unknown");
}

}  // namespace
}  // namespace polyfuse::bench
