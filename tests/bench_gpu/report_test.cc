// The CSV writer, the summary (one `geomean` line per idiom, dtype, polyfuse variant and
// baseline) and issue 7's goals, on synthetic timings.
#include <gtest/gtest.h>

#include <algorithm>

#include "bench/gpu/csv.h"
#include "bench/gpu/goals.h"
#include "bench/gpu/summary.h"

namespace polyfuse::bench {
namespace {

RunEnvironment synthetic_environment() {
  RunEnvironment environment;
  environment.gpu = "Synthetic GPU, not a measurement";
  environment.driver = "0.0 (CUDA 0.0)";
  environment.cuda_runtime = "0.0";
  environment.cublas = "0.0.0";
  environment.cudnn = "0.0.0";
  environment.date = "2000-01-01T00:00:00Z";
  environment.command = "polyfuse-bench --synthetic";
  environment.arch = "sm_90a";
  return environment;
}

ResultRow row(const std::string& idiom, DType dtype, std::optional<double> cublas, std::optional<double> lt,
              std::optional<double> polyfuse_default, std::optional<double> polyfuse_best) {
  ResultRow r;
  r.idiom = idiom;
  r.dtype = dtype;
  r.size = {256, 512, 128, 1};
  r.cublas_cudnn_ms = cublas;
  r.cublaslt_ms = lt;
  r.polyfuse_default_ms = polyfuse_default;
  r.polyfuse_best_ms = polyfuse_best;
  r.polyfuse_best_config = polyfuse_best ? "block=128x256x32" : "";
  return r;
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

TEST(BenchCsv, HeaderNamesEveryColumnOnce) {
  const std::string header = csv_header();
  EXPECT_EQ(header.rfind("gpu,driver,cuda_runtime,cublas,cudnn,date,idiom,dtype,M,N,K,batch,", 0), 0u) << header;
  EXPECT_EQ(split_fields(header).size(), csv_columns().size());
  for (const char* column : {"cublas_cudnn_ms", "cublaslt_ms", "polyfuse_default_ms", "polyfuse_best_ms",
                             "speedup_best_vs_cublas_cudnn", "speedup_best_vs_cublaslt", "check"})
    EXPECT_NE(std::find(csv_columns().begin(), csv_columns().end(), column), csv_columns().end()) << column;
}

TEST(BenchCsv, RowHasTimesAndSpeedupsAndEmptyFieldsForUnmeasured) {
  ResultRow r = row("gemm_bias_relu", DType::bf16, 2.0, std::nullopt, 1.0, 0.5);
  r.notes = "cublaslt not measured: no algorithm, for this \"problem\"";
  const std::vector<std::string> fields = split_fields(csv_row(synthetic_environment(), r));
  ASSERT_EQ(fields.size(), csv_columns().size());
  auto field = [&](const std::string& column) {
    const auto it = std::find(csv_columns().begin(), csv_columns().end(), column);
    return fields[static_cast<size_t>(it - csv_columns().begin())];
  };
  EXPECT_EQ(field("gpu"), "Synthetic GPU, not a measurement");  // quoted: has a comma
  EXPECT_EQ(field("idiom"), "gemm_bias_relu");
  EXPECT_EQ(field("dtype"), "bf16");
  EXPECT_EQ(field("M"), "256");
  EXPECT_EQ(field("N"), "512");
  EXPECT_EQ(field("K"), "128");
  EXPECT_EQ(field("batch"), "1");
  EXPECT_EQ(field("l2_flush"), "yes");
  EXPECT_EQ(field("repeats"), "20");
  EXPECT_EQ(field("cublas_cudnn_ms"), "2");
  EXPECT_EQ(field("cublaslt_ms"), "");
  EXPECT_EQ(field("polyfuse_best_ms"), "0.5");
  EXPECT_EQ(field("polyfuse_best_config"), "block=128x256x32");
  EXPECT_EQ(field("speedup_best_vs_cublas_cudnn"), "4");
  EXPECT_EQ(field("speedup_best_vs_cublaslt"), "");
  EXPECT_EQ(field("speedup_default_vs_cublas_cudnn"), "2");
  EXPECT_EQ(field("check"), "ok");
  EXPECT_EQ(field("notes"), r.notes);  // quotes survive the round trip
  EXPECT_EQ(field("polyfuse_autotuned_ms"), "");  // without --autotune
  r.polyfuse_autotuned_ms = 0.25;
  r.polyfuse_autotuned_config = "block=128x256x32 stages=3 (timed)";
  const std::vector<std::string> tuned = split_fields(csv_row(synthetic_environment(), r));
  auto tuned_field = [&](const std::string& column) {
    return tuned[static_cast<size_t>(std::find(csv_columns().begin(), csv_columns().end(), column) - csv_columns().begin())];
  };
  EXPECT_EQ(tuned_field("polyfuse_autotuned_ms"), "0.25");
  EXPECT_EQ(tuned_field("arch"), "sm_90a");
  EXPECT_EQ(tuned_field("polyfuse_autotuned_config"), "block=128x256x32 stages=3 (timed)");
  EXPECT_EQ(tuned_field("speedup_autotuned_vs_cublas_cudnn"), "8");
  // The summary gets the autotuned variant's geomean lines where it was measured.
  bool autotuned_line = false;
  for (const std::string& line : summary_lines({r}))
    autotuned_line |= line.rfind("gemm_bias_relu     bf16 polyfuse_autotuned vs cublas_cudnn: geomean 8.000x", 0) == 0;
  EXPECT_TRUE(autotuned_line);
}

TEST(BenchCsv, EscapesOnlyWhenNeeded) {
  EXPECT_EQ(csv_escape("plain"), "plain");
  EXPECT_EQ(csv_escape("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_escape("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_escape("two\nlines"), "\"two\nlines\"");
}

TEST(BenchSummary, OneGeomeanLinePerIdiomDtypeVariantAndBaseline) {
  std::vector<ResultRow> rows = {
      row("gemm", DType::f16, 1.0, 1.0, 1.25, 1.0),
      row("gemm", DType::f16, 2.0, 2.0, 2.0, 2.5),
      row("gemm_bias_relu", DType::f16, 2.6, 2.0, 2.0, 2.0),
      row("gemm_bias_relu", DType::bf16, 2.0, 2.0, 2.0, 2.0),
  };
  const std::vector<std::string> lines = summary_lines(rows);
  // (gemm f16) + (gemm_bias_relu f16) + (gemm_bias_relu bf16): 3 x 2 polyfuse variants x 2 baselines.
  ASSERT_EQ(lines.size(), 12u);
  for (const std::string& line : lines) EXPECT_NE(line.find("geomean"), std::string::npos) << line;
  // gemm f16, best vs cublas: speedups 1.0 and 0.8 -> geomean sqrt(0.8), min 0.8, max 1.0, 50% >= 1.0.
  EXPECT_NE(lines[0].find("gemm"), std::string::npos);
  EXPECT_NE(lines[0].find("polyfuse_best"), std::string::npos);
  EXPECT_NE(lines[0].find("vs cublas_cudnn"), std::string::npos);
  EXPECT_NE(lines[0].find("geomean 0.894x  min 0.800x  max 1.000x  >=1.0 on 50% of 2 sizes"), std::string::npos)
      << lines[0];
  // Goal: GEMM >= 0.9x cuBLAS, missed by 0.006.
  EXPECT_NE(lines[0].find("goal (H100, f16) >= 0.90x: MISSED by 0.006x"), std::string::npos) << lines[0];
  // gemm_bias_relu f16 best vs cublas_cudnn: 1.3x exactly -> goal 1.3 met; vs cublaslt 1.0 -> met.
  const auto relu_cublas = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("gemm_bias_relu     f16  polyfuse_best    vs cublas_cudnn") == 0;
  });
  ASSERT_NE(relu_cublas, lines.end());
  EXPECT_NE(relu_cublas->find("geomean 1.300x"), std::string::npos) << *relu_cublas;
  EXPECT_NE(relu_cublas->find(">= 1.30x: met"), std::string::npos) << *relu_cublas;
  // No goal for bf16 nor for polyfuse_default.
  for (const std::string& line : lines) {
    if (line.find("bf16") != std::string::npos || line.find("polyfuse_default") != std::string::npos) {
      EXPECT_EQ(line.find("goal"), std::string::npos) << line;
    }
  }
}

TEST(BenchSummary, UnmeasuredBaselineSaysSo) {
  const std::vector<std::string> lines = summary_lines({row("gemm_bias_gelu", DType::f16, std::nullopt, 1.0, 1.0, 1.0)});
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_NE(lines[0].find("geomean n/a (no size with both times, of 1 sizes)"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("geomean 1.000x"), std::string::npos) << lines[1];
}

TEST(BenchSummary, HeaderNamesGpuCommandMethodAndFailures) {
  ResultRow failed = row("add_gemms", DType::f16, 1.0, 1.0, 1.0, 1.0);
  failed.check = "cublaslt vs host reference: FAILED";
  RunEnvironment environment = synthetic_environment();
  environment.l2_flush = false;
  const std::string text = summary_text(environment, {failed});
  EXPECT_NE(text.find("gpu: Synthetic GPU, not a measurement"), std::string::npos) << text;
  EXPECT_NE(text.find("command: polyfuse-bench --synthetic"), std::string::npos) << text;
  EXPECT_NE(text.find("median of 20 timed launches"), std::string::npos) << text;
  EXPECT_NE(text.find("L2 NOT flushed"), std::string::npos) << text;
  EXPECT_NE(text.find("not one"), std::string::npos) << text;  // not an H100: the goals' GPU
  EXPECT_NE(text.find("CHECK FAILURES in: add_gemms"), std::string::npos) << text;
}

// A convolution's row: its layer and cuDNN's times in their own columns, the GEMM ones empty.
TEST(BenchCsv, ConvolutionRowHasCudnnColumnsAndTheLayer) {
  ResultRow r = row("conv_bias_relu", DType::f16, std::nullopt, std::nullopt, 2.0, 2.0);
  r.size = {32 * 56 * 56, 64, 576, 1};
  r.cudnn_conv_ms = 3.0;
  r.cudnn_fused_ms = 2.5;
  r.layer = "res2 3x3: N32 56x56 C64 K64 3x3 s1 p1";
  const std::vector<std::string> fields = split_fields(csv_row(synthetic_environment(), r));
  ASSERT_EQ(fields.size(), csv_columns().size());
  auto field = [&](const std::string& column) {
    const auto it = std::find(csv_columns().begin(), csv_columns().end(), column);
    EXPECT_NE(it, csv_columns().end()) << column;
    return fields[static_cast<size_t>(it - csv_columns().begin())];
  };
  EXPECT_EQ(field("M"), "100352");
  EXPECT_EQ(field("cudnn_conv_ms"), "3");
  EXPECT_EQ(field("cudnn_fused_ms"), "2.5");
  EXPECT_EQ(field("speedup_best_vs_cudnn_conv"), "1.5");
  EXPECT_EQ(field("speedup_best_vs_cudnn_fused"), "1.25");
  EXPECT_EQ(field("speedup_default_vs_cudnn_fused"), "1.25");
  EXPECT_EQ(field("layer"), "res2 3x3: N32 56x56 C64 K64 3x3 s1 p1");
  EXPECT_EQ(field("cublas_cudnn_ms"), "");
  EXPECT_EQ(field("speedup_best_vs_cublaslt"), "");
  // A GEMM row leaves the convolution columns empty.
  const std::vector<std::string> gemm =
      split_fields(csv_row(synthetic_environment(), row("gemm", DType::f16, 1.0, 1.0, 1.0, 1.0)));
  EXPECT_EQ(gemm[static_cast<size_t>(std::find(csv_columns().begin(), csv_columns().end(), "cudnn_conv_ms") -
                                     csv_columns().begin())],
            "");
}

// Convolution idioms are summarised against cuDNN (not cuBLAS) with issue 24's goals.
TEST(BenchSummary, ConvolutionsAgainstCudnnWithTheirGoals) {
  std::vector<ResultRow> rows;
  for (double fused : {2.0, 1.8}) {  // polyfuse 2.0 ms: 1.0x and 0.9x the fused call
    ResultRow r = row("conv_bias_relu", DType::f16, std::nullopt, std::nullopt, 2.0, 2.0);
    r.cudnn_conv_ms = 3.0;
    r.cudnn_fused_ms = fused;
    rows.push_back(r);
  }
  ResultRow plain = row("conv", DType::f16, std::nullopt, std::nullopt, 1.0, 1.0);
  plain.cudnn_conv_ms = 0.9;
  rows.push_back(plain);
  const std::vector<std::string> lines = summary_lines(rows);
  ASSERT_EQ(lines.size(), 8u);  // 2 idioms x 2 polyfuse variants x 2 cuDNN baselines
  for (const std::string& line : lines) {
    EXPECT_EQ(line.find("cublas"), std::string::npos) << line;
    EXPECT_NE(line.find("vs cudnn_"), std::string::npos) << line;
  }
  // conv: 0.9x cudnn_conv, goal 0.9: met; no cudnn_fused time.
  EXPECT_EQ(lines[0].rfind("conv               f16  polyfuse_best    vs cudnn_conv  : geomean 0.900x", 0), 0u)
      << lines[0];
  EXPECT_NE(lines[0].find("goal (H100, f16) >= 0.90x: met"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("geomean n/a"), std::string::npos) << lines[1];
  // conv_bias_relu vs cudnn_fused: sqrt(1.0 * 0.9) = 0.949, goal 1.0 missed.
  const auto fused = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("conv_bias_relu     f16  polyfuse_best    vs cudnn_fused") == 0;
  });
  ASSERT_NE(fused, lines.end());
  EXPECT_NE(fused->find("geomean 0.949x"), std::string::npos) << *fused;
  EXPECT_NE(fused->find(">= 1.00x: MISSED"), std::string::npos) << *fused;
}

TEST(BenchGoals, TheIssuesGoals) {
  ASSERT_EQ(performance_goals().size(), 10u);
  EXPECT_EQ(find_goal("gemm", DType::f16, Variant::polyfuse_best, Variant::cublas_cudnn)->min_geomean, 0.9);
  EXPECT_EQ(find_goal("gemm_bias_relu", DType::f16, Variant::polyfuse_best, Variant::cublas_cudnn)->min_geomean, 1.3);
  EXPECT_EQ(find_goal("gemm_bias_relu", DType::f16, Variant::polyfuse_best, Variant::cublaslt)->min_geomean, 1.0);
  EXPECT_EQ(find_goal("add_gemms", DType::f16, Variant::polyfuse_best, Variant::cublas_cudnn)->min_geomean, 1.3);
  EXPECT_EQ(find_goal("gemm_bias_tanh", DType::f16, Variant::polyfuse_best, Variant::cublaslt)->min_geomean, 1.2);
  EXPECT_EQ(find_goal("swiglu", DType::f16, Variant::polyfuse_best, Variant::cublas_cudnn)->min_geomean, 1.3);
  EXPECT_EQ(find_goal("gemm_softmax", DType::f16, Variant::polyfuse_best, Variant::cublas_cudnn)->min_geomean, 1.2);
  EXPECT_EQ(find_goal("gemm_layernorm", DType::f16, Variant::polyfuse_best, Variant::cublaslt)->min_geomean, 1.2);
  // issue 24: convolutions against cuDNN
  EXPECT_EQ(find_goal("conv", DType::f16, Variant::polyfuse_best, Variant::cudnn_conv)->min_geomean, 0.9);
  EXPECT_EQ(find_goal("conv_bias_relu", DType::f16, Variant::polyfuse_best, Variant::cudnn_fused)->min_geomean, 1.0);
  EXPECT_FALSE(find_goal("conv_bias_relu", DType::f16, Variant::polyfuse_best, Variant::cudnn_conv));
  EXPECT_FALSE(find_goal("gemm_bias_tanh", DType::f16, Variant::polyfuse_best, Variant::cublas_cudnn));
  EXPECT_FALSE(find_goal("gemm", DType::bf16, Variant::polyfuse_best, Variant::cublas_cudnn));
  EXPECT_FALSE(find_goal("gemm", DType::f16, Variant::polyfuse_default, Variant::cublas_cudnn));
}

TEST(BenchGoals, DescribesMetMissedAndUnmeasured) {
  const Goal goal{"gemm_bias_tanh", DType::f16, Variant::cublaslt, 1.2};
  EXPECT_EQ(describe_goal(goal, 1.25, 10), "goal (H100, f16) >= 1.20x: met (+0.050x)");
  EXPECT_EQ(describe_goal(goal, 1.08, 10), "goal (H100, f16) >= 1.20x: MISSED by 0.120x (10.0% short)");
  EXPECT_EQ(describe_goal(goal, 0, 0), "goal (H100, f16) >= 1.20x: not measured");
}

}  // namespace
}  // namespace polyfuse::bench
