// polyfuse-bench's command line (clear errors, defaults), its plan (problems, variants,
// tile configurations) and the --dry-run listing.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "bench/gpu/conv_idioms.h"
#include "bench/gpu/options.h"
#include "bench/gpu/plan.h"
#include "bench/gpu/tile_configs.h"

namespace polyfuse::bench {
namespace {

ParseOutcome parse(std::vector<const char*> arguments) {
  arguments.insert(arguments.begin(), "polyfuse-bench");
  return parse_options(static_cast<int>(arguments.size()), arguments.data());
}

std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) lines.push_back(line);
  return lines;
}

TEST(BenchOptions, DefaultsAreTheProtocol) {
  const ParseOutcome outcome = parse({});
  ASSERT_TRUE(outcome.options) << outcome.message;
  const BenchOptions& options = *outcome.options;
  EXPECT_EQ(options.sizes.size(), 100u);
  EXPECT_EQ(options.idioms.size(), all_idioms().size());
  EXPECT_EQ(options.dtypes.size(), 2u);
  EXPECT_EQ(options.repeats, 20);
  EXPECT_TRUE(options.l2_flush);
  EXPECT_TRUE(options.tune);
  EXPECT_EQ(options.command, "polyfuse-bench");
}

TEST(BenchOptions, QuickSizesIdiomsDtypes) {
  const ParseOutcome outcome =
      parse({"--quick", "--idiom", "gemm", "--idiom", "add_gemms", "--dtype", "bf16", "--no-flush", "--csv", "a b.csv"});
  ASSERT_TRUE(outcome.options) << outcome.message;
  const BenchOptions& options = *outcome.options;
  EXPECT_EQ(options.sizes.size(), 20u);
  ASSERT_EQ(options.idioms.size(), 2u);
  EXPECT_EQ(options.idioms[1]->name, "add_gemms");
  EXPECT_EQ(options.dtypes, std::vector<DType>{DType::bf16});
  EXPECT_FALSE(options.l2_flush);
  EXPECT_EQ(options.command, "polyfuse-bench --quick --idiom gemm --idiom add_gemms --dtype bf16 --no-flush --csv 'a b.csv'");
}

TEST(BenchOptions, ExplicitSizesTakeTheBatch) {
  const ParseOutcome outcome = parse({"--size", "256x512x128", "--size", "128x128x128", "--batch", "4"});
  ASSERT_TRUE(outcome.options) << outcome.message;
  ASSERT_EQ(outcome.options->sizes.size(), 2u);
  EXPECT_EQ(outcome.options->sizes[0], (ProblemSize{256, 512, 128, 4}));
  EXPECT_TRUE(outcome.options->explicit_sizes);
}

TEST(BenchOptions, ErrorsAreClear) {
  struct Case {
    std::vector<const char*> arguments;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--idiom", "convolution"}, "--idiom 'convolution': unknown idiom; choose from gemm, gemm_bias_relu"},
      {{"--idiom", "conv3d"}, "conv, conv_bias_relu, conv_bias_residual_relu"},
      {{"--conv", "--size", "128x128x128"}, "--size sets the GEMM idioms' sizes; the convolution idioms run on"},
      {{"--conv", "--conv-batch", "0"}, "--conv-batch"},
      {{"--dtype", "f32"}, "--dtype 'f32': unknown element type; choose f16 or bf16"},
      {{"--size", "128x128"}, "--size '128x128': expected MxNxK"},
      {{"--quick", "--size", "128x128x128"}, "--quick and --size exclude each other"},
      {{"--dry-run", "--compile-only"}, "--dry-run and --compile-only exclude each other"},
      {{"--repeats", "0"}, "--repeats"},
      {{"--arch", "sm_70"}, "--arch"},
      {{"--frobnicate"}, "--frobnicate"},
  };
  for (const Case& c : cases) {
    const ParseOutcome outcome = parse(c.arguments);
    EXPECT_FALSE(outcome.options) << c.message;
    EXPECT_EQ(outcome.exit_code, exit_usage) << c.message;
    EXPECT_EQ(outcome.message.rfind("polyfuse-bench: error: ", 0), 0u) << outcome.message;
    EXPECT_NE(outcome.message.find(c.message), std::string::npos) << outcome.message;
  }
}

// --conv: the convolution idioms alone (GEMM idioms only where named), on the run's layers.
TEST(BenchOptions, ConvolutionsByFlagOrByName) {
  const BenchOptions conv = *parse({"--conv"}).options;
  EXPECT_TRUE(conv.idioms.empty());
  ASSERT_EQ(conv.conv_idioms.size(), conv_idioms().size());
  ASSERT_EQ(conv.conv_layers.size(), 17u);
  EXPECT_EQ(conv.conv_layers.front().n, 32);  // batch 32 by default
  const BenchOptions large = *parse({"--conv", "--conv-batch", "128", "--quick"}).options;
  ASSERT_EQ(large.conv_layers.size(), 5u);
  EXPECT_EQ(large.conv_layers.front().n, 128);
  const BenchOptions named = *parse({"--idiom", "conv_bias_relu", "--idiom", "gemm"}).options;
  ASSERT_EQ(named.conv_idioms.size(), 1u);
  EXPECT_EQ(named.conv_idioms[0]->name, "conv_bias_relu");
  ASSERT_EQ(named.idioms.size(), 1u);  // and the GEMM idiom named beside it
  EXPECT_EQ(named.idioms[0]->name, "gemm");
  const BenchOptions plain = *parse({}).options;  // without --conv: no convolution
  EXPECT_TRUE(plain.conv_idioms.empty());
  EXPECT_TRUE(plain.conv_layers.empty());
}

TEST(BenchOptions, HelpIsNotAnError) {
  const ParseOutcome outcome = parse({"--help"});
  EXPECT_FALSE(outcome.options);
  EXPECT_EQ(outcome.exit_code, exit_ok);
  EXPECT_NE(outcome.message.find("--dry-run"), std::string::npos);
}

TEST(BenchPlan, EveryIdiomHasEveryVariantOrAReason) {
  for (bool cudnn : {false, true}) {
    for (const Idiom& idiom : all_idioms()) {
      const std::vector<VariantPlan> plans = variant_plans(idiom, {cudnn, cudnn ? "9.19.0" : ""});
      ASSERT_EQ(plans.size(), 4u);
      for (const VariantPlan& plan : plans) EXPECT_FALSE(plan.how.empty()) << idiom.name;
      EXPECT_TRUE(plans[1].available) << idiom.name;  // cuBLASLt computes every idiom
      const bool needs_cudnn = idiom.name != "gemm";
      // cuDNN has no GELU and, in its legacy API, no layer norm
      const bool cudnn_computes = idiom.activation != Activation::gelu && idiom.row != RowOp::layernorm;
      EXPECT_EQ(plans[0].available, !needs_cudnn || (cudnn && cudnn_computes)) << idiom.name;
    }
  }
  const std::vector<VariantPlan> tanh = variant_plans(*find_idiom("gemm_bias_tanh"), {true, "9"});
  EXPECT_NE(tanh[1].how.find("extra tanh kernel"), std::string::npos) << tanh[1].how;
  const std::vector<VariantPlan> relu = variant_plans(*find_idiom("gemm_bias_relu"), {true, "9"});
  EXPECT_NE(relu[1].how.find("RELU_BIAS"), std::string::npos) << relu[1].how;
  EXPECT_NE(relu[0].how.find("cudnnAddTensor"), std::string::npos) << relu[0].how;
}

TEST(BenchPlan, TileConfigsFitOnlyDividingSizes) {
  EXPECT_EQ(tuning_configs().size(), 10u);
  EXPECT_TRUE(tuning_configs()[0].is_default());
  EXPECT_EQ(fitting_configs({128, 128, 128, 1}).size(), 7u);  // neither 128x256 (twice) nor 256x128
  EXPECT_EQ(fitting_configs({256, 256, 128, 1}).size(), 10u);
  EXPECT_EQ(fitting_configs({256, 128, 128, 1}).size(), 8u);  // 256x128 fits, 128x256 (twice) does not
  EXPECT_TRUE(fitting_configs({100, 100, 100, 1}).empty());
  EXPECT_EQ(to_string(tuning_configs()[0]), "default");
  EXPECT_EQ(to_string(TileConfig{TileShape{128, 128, 32}, TileShape{64, 32, 32}, 1, 2, {}, {}}), "block=128x128x32 warp=64x32x32 stages=1 split_k=2");
}

TEST(BenchPlan, ProblemsAreSizeMajorAndBatchOnlyForBatchedIdioms) {
  const BenchOptions options = *parse({"--quick"}).options;
  const std::vector<Problem> problems = plan_problems(options);
  ASSERT_EQ(problems.size(), 20u * all_idioms().size() * 2);
  EXPECT_EQ(problems.front().size_index, 0);
  EXPECT_EQ(problems.back().size_index, 19);
  for (const Problem& problem : problems) EXPECT_EQ(problem.size.batch, problem.idiom->batched ? 8 : 1);
}

TEST(BenchDryRun, ListsEveryIdiomBaselineAndSize) {
  for (const char* mode : {"--quick", "--seed=2019"}) {
    const BenchOptions options = *parse({mode}).options;
    const std::string listing = dry_run_listing(options, {true, "9.19.0"}, "no CUDA device: test");
    const std::vector<std::string> runs = lines_starting(listing, "run ");
    const size_t sizes = options.quick ? 20 : 100;
    ASSERT_EQ(runs.size(), sizes * all_idioms().size() * 2) << mode;
    std::set<std::string> distinct_sizes, idioms, dtypes;
    for (const std::string& line : runs) {
      const size_t m = line.find("M="), batch = line.find("batch=");
      distinct_sizes.insert(line.substr(m, batch - m));
      for (const Idiom& idiom : all_idioms())
        if (line.find(" " + idiom.name + " ") != std::string::npos) idioms.insert(idiom.name);
      dtypes.insert(line.find(" f16 ") != std::string::npos ? "f16" : "bf16");
      for (const char* variant : {"cublas_cudnn", "cublaslt", "polyfuse_default", "polyfuse_best("})
        EXPECT_NE(line.find(variant), std::string::npos) << line;
    }
    EXPECT_EQ(distinct_sizes.size(), sizes) << mode;
    EXPECT_EQ(idioms.size(), all_idioms().size());
    EXPECT_EQ(dtypes.size(), 2u);
    EXPECT_NE(listing.find("cudnn: found, version 9.19.0"), std::string::npos);
    EXPECT_NE(listing.find("device: no CUDA device: test"), std::string::npos);
    EXPECT_NE(listing.find("median of 20 timed launches"), std::string::npos);
  }
}

// --autotune adds the autotuner's winner to every GEMM problem, and says what it is.
TEST(BenchDryRun, AutotuneAddsTheAutotunedVariant) {
  const BenchOptions options = *parse({"--size", "256x256x128", "--idiom", "gemm", "--autotune"}).options;
  const std::string listing = dry_run_listing(options, {true, "9"}, "none");
  const std::vector<std::string> runs = lines_starting(listing, "run ");
  ASSERT_EQ(runs.size(), 2u);
  for (const std::string& run : runs) EXPECT_NE(run.find("polyfuse_best(10 configs) polyfuse_autotuned"), std::string::npos) << run;
  EXPECT_NE(listing.find("polyfuse_autotuned (--autotune): the autotuner's winner"), std::string::npos) << listing;
  const std::string plain = dry_run_listing(*parse({"--size", "256x256x128", "--idiom", "gemm"}).options, {true, "9"}, "none");
  EXPECT_EQ(plain.find("polyfuse_autotuned"), std::string::npos);
}

TEST(BenchPlan, ConvProblemsLayerMajorResidualWhereItApplies) {
  const BenchOptions options = *parse({"--conv", "--quick", "--dtype", "f16"}).options;
  const std::vector<ConvProblem> problems = plan_conv_problems(options);
  // 4 layers x 2 idioms, the residual only on res2 3x3 (the one "same" layer with K = C), and
  // the grouped layer x the 2 grouped idioms.
  ASSERT_EQ(problems.size(), 4u * 2 + 1 + 2);
  EXPECT_EQ(problems[0].shape.name, "res2 3x3");
  EXPECT_EQ(problems[2].idiom->name, "conv_bias_residual_relu");
  EXPECT_EQ(problems.back().shape.name, "rx3 3x3 g32");
  EXPECT_EQ(problems.back().idiom->name, "conv_grouped_bias_relu");
  EXPECT_EQ(problems.back().layer_index, 4);
  for (bool cudnn : {false, true}) {
    for (const ConvIdiom& idiom : conv_idioms()) {
      const std::vector<VariantPlan> plans = conv_variant_plans(idiom, {cudnn, cudnn ? "9.19.0" : ""});
      ASSERT_EQ(plans.size(), 4u);
      EXPECT_EQ(plans[0].variant, Variant::cudnn_conv);
      EXPECT_EQ(plans[0].available, cudnn) << idiom.name;
      EXPECT_EQ(plans[1].variant, Variant::cudnn_fused);
      EXPECT_EQ(plans[1].available, cudnn && idiom.epilogue != ConvEpilogue::none) << idiom.name;
      for (const VariantPlan& plan : plans) EXPECT_FALSE(plan.how.empty()) << idiom.name;
    }
  }
  const std::vector<VariantPlan> residual =
      conv_variant_plans(*find_conv_idiom("conv_bias_residual_relu"), {true, "9"});
  EXPECT_NE(residual[0].how.find("cudnnFindConvolutionForwardAlgorithmEx"), std::string::npos) << residual[0].how;
  EXPECT_NE(residual[0].how.find("cudnnOpTensor (add the residual I)"), std::string::npos) << residual[0].how;
  EXPECT_NE(residual[1].how.find("cudnnConvolutionBiasActivationForward"), std::string::npos) << residual[1].how;
  EXPECT_NE(residual[1].how.find("alpha2 = 1"), std::string::npos) << residual[1].how;
}

TEST(BenchDryRun, ListsEveryConvolutionProblem) {
  const BenchOptions options = *parse({"--conv"}).options;
  const std::string listing = dry_run_listing(options, {true, "9.19.0"}, "none");
  EXPECT_TRUE(lines_starting(listing, "run ").empty());
  const std::vector<std::string> convs = lines_starting(listing, "conv ");
  // 12 layers x 3 idioms less the 8 the residual does not apply to, and 5 grouped layers x 2
  // grouped idioms, x 2 dtypes
  ASSERT_EQ(convs.size(), (12u * 3 - 8 + 5 * 2) * 2);
  EXPECT_NE(listing.find("convolution problems: 76 (17 layers x 5 idioms x 2 dtypes, less 94"), std::string::npos)
      << listing;
  EXPECT_NE(listing.find("convolution layers: 17 (NHWC input, KRSC filter; ResNet-50's at batch 32"),
            std::string::npos) << listing;
  EXPECT_NE(listing.find("rx3 3x3 g32  N32 28x28 C256 K256 3x3 s1 p1 g32 conv_grouped_bias_relu"), std::string::npos) << listing;
  EXPECT_NE(convs[0].find("res2 3x3     N32 56x56 C64 K64 3x3 s1 p1"), std::string::npos) << convs[0];
  EXPECT_NE(convs[0].find("cudnn_conv cudnn_fused(n/a) polyfuse_default"), std::string::npos) << convs[0];
  EXPECT_NE(convs[2].find("conv_bias_relu          f16  : cudnn_conv cudnn_fused polyfuse_default"),
            std::string::npos) << convs[2];
  EXPECT_EQ(listing.find("polyfuse tile configurations"), std::string::npos);  // no GEMM idiom
}

TEST(BenchDryRun, SaysWhenCudnnIsMissing) {
  const BenchOptions options = *parse({"--size", "128x128x128", "--idiom", "gemm_bias_relu"}).options;
  const std::string listing = dry_run_listing(options, {false, ""}, "none");
  EXPECT_NE(listing.find("cudnn: NOT found at build time"), std::string::npos) << listing;
  const std::vector<std::string> runs = lines_starting(listing, "run ");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_NE(runs[0].find("cublas_cudnn(n/a)"), std::string::npos) << runs[0];
  EXPECT_NE(runs[0].find("polyfuse_best(7 configs)"), std::string::npos) << runs[0];
}

}  // namespace
}  // namespace polyfuse::bench
