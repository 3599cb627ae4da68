// The convolutions (examples/conv2d*.tc, issue 24) on the CPU target: BRGEMM over the filter
// taps (schedule/cpu_conv.h; the 1x1 one GEMM over N * H * W rows), run through the driver
// on random inputs and checked against the exact reference, at the small odd shapes of
// tests/support/conv_shapes.h (C = 3, stride 2, H, W, C, K multiples of nothing); the plan
// each takes, its golden schedule and code, threads, planted errors (a wrong tap offset,
// filter order, folded rows), the 1x1's folding and its limits, an OIHW filter, narrow
// channel blocks, wide channels, and the loop nest that a boundary value other than zero keeps.
#include <gtest/gtest.h>

#include <optional>

#include "codegen/cpu_emit.h"
#include "support/golden.h"
#include "runtime/api/run_program.h"
#include "support/conv_shapes.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

class ConvExampleCpu : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvExampleCpu, MatchesTheReference) {
  const ConvCase& c = GetParam();
  const Program program = compile_text(example_text(c.example), c.sizes, c.example + ".tc");
  RunRequest request;
  request.target = Target::cpu;
  request.cpu_schedule.target = default_cpu_target();
  request.repeats = 0;
  request.seed = 42;
  const RunReport report = run_program(program, request);
  EXPECT_TRUE(report.check.ok) << report.check.to_string() << "\n" << report.library;
  EXPECT_GT(report.check.compared, 0);
}

// f16 and bf16 inputs (ResNet's types): rounded once per output element, as the reference.
TEST(ConvExampleCpuTypes, HalfAndBfloat) {
  const std::vector<std::pair<std::string, std::string>> cases = {{"conv2d_strided", "f16"},
                                                                   {"conv2d_bias_relu", "bf16"}};
  for (const auto& [example, dtype] : cases) {
    SCOPED_TRACE(example + " " + dtype);
    const ConvCase shape = conv_cases()[example == "conv2d_strided" ? 2 : 8];
    const Program program = compile_text(example_text(example, dtype), shape.sizes, example + ".tc");
    RunRequest request;
    request.target = Target::cpu;
    request.cpu_schedule.target = default_cpu_target();
    request.repeats = 0;
    const RunReport report = run_program(program, request);
    EXPECT_TRUE(report.check.ok) << report.check.to_string();
  }
}

RunRequest cpu_request() { return cpu_run_request(42); }

// The sizes of `example`'s first case.
SizeBindings first_sizes(const std::string& example) {
  for (const ConvCase& c : conv_cases())
    if (c.example == example) return c.sizes;
  return {};
}

// The convolution stage of `plan`'s main, or nullptr.
const CpuMatmul* conv_main(const CpuPlan& plan) {
  for (const CpuStage& stage : plan.stages)
    for (const CpuMatmul& matmul : stage.matmuls)
      if (matmul.conv) return &matmul;
  return nullptr;
}

// Every example but the 1x1 runs as BRGEMM over its taps, no statement as a loop nest; the
// 1x1 (plain subscripts) is a matmul idiom with batch indices (n, h) folded into its rows:
// one GEMM with M = N * H * W (schedule/cpu_fold.h).
TEST(ConvExampleCpuPlan, EveryConvolutionIsBrgemmOverTaps) {
  for (const std::string& example : convolution_examples()) {
    SCOPED_TRACE(example);
    const Program program = compile_text(example_text(example), first_sizes(example), example + ".tc");
    const CpuPlan plan = plan_cpu(program);
    if (example == "conv2d_1x1") {  // m = (n, h, w), k = c
      ASSERT_EQ(plan.stages.size(), 1u);
      ASSERT_EQ(plan.stages[0].matmuls.size(), 1u) << to_string(plan);
      EXPECT_FALSE(plan.stages[0].matmuls[0].conv);
      EXPECT_TRUE(plan.stages[0].batch_names.empty()) << to_string(plan);
      EXPECT_EQ(plan.stages[0].m_name, "n_h_w");
      EXPECT_EQ(plan.stages[0].m_extent, 2 * 9 * 7);
      continue;
    }
    const CpuMatmul* conv = conv_main(plan);
    ASSERT_NE(conv, nullptr) << to_string(plan);
    EXPECT_EQ(conv->conv->taps.size(), 2u);
    for (const CpuStage& stage : plan.stages) EXPECT_FALSE(stage.loop_nest) << to_string(plan);
  }
}

// Golden CPU schedules and emitted C++ of the convolutions at the first shape of conv_cases.
TEST(ConvExampleCpuPlan, GoldenScheduleAndCode) {
  for (const std::string& example : convolution_examples()) {
    const Program program = compile_text(example_text(example), first_sizes(example), "examples/" + example + ".tc");
    CpuScheduleOptions options;
    options.min_parallel_flops = 0;  // the parallel loops, at these small sizes too
    const CpuPlan plan = plan_cpu(program, options);
    EXPECT_TRUE(matches_golden(to_string(plan), "cpu/" + example + ".schedule"));
    EXPECT_TRUE(matches_golden(emit_cpu(plan, program), "cpu/" + example + ".cpp"));
  }
}

// Threads split output blocks, never a tap or a channel: 1 and 2 threads give the same bits,
// at small blocks (many, with edges; the 1x1's blocks of 3 rows cross its image rows of 7).
TEST(ConvExampleCpuPlan, ResultsDoNotDependOnTheThreadCount) {
  for (const std::size_t index : {2u, 4u, 6u}) {  // conv2d_strided, conv2d_1x1, conv2d_grouped (first shape)
    const ConvCase c = conv_cases()[index];
    SCOPED_TRACE(conv_case_name(c));
    const Program program = compile_text(example_text(c.example), c.sizes, c.example + ".tc");
    RunRequest request = cpu_request();
    request.cpu_schedule.blocking = {3, 2, 32};
    request.cpu_schedule.min_parallel_flops = 0;  // parallel at this small size
    std::optional<reference::TensorData> one_thread;
    for (int threads : {1, 2}) {
      request.cpu_schedule.threads = threads;
      const RunReport report = run_program(program, request);
      EXPECT_TRUE(report.check.ok) << threads << " threads: " << report.check.to_string();
      if (!one_thread) one_thread = report.outputs;
      else EXPECT_TRUE(report.outputs == *one_thread) << "2 threads differ from 1";
    }
  }
}

// A padded copy's storage is kept by each calling thread, its border zeroed once: the second
// call, on other inputs, is exact too (stride 2; bias + ReLU). Not vacuous: a planted write to
// the border at the end of each call (after its use) fails the second call, not the first.
TEST(ConvExampleCpuPlan, KeptPaddedCopiesAreRightOnEveryCall) {
  for (const std::string example : {"conv2d_strided", "conv2d_bias_relu"}) {
    const Program program = compile_text(example_text(example), first_sizes(example), example + ".tc");
    const CpuPlan plan = plan_cpu(program);
    const std::string code = emit_cpu(plan, program);
    ASSERT_NE(code.find("static thread_local std::vector<float> I_padded_storage"), std::string::npos) << code;
    std::string planted = code;
    const std::size_t entry = planted.find("extern \"C\" void " + cpu_entry_name(program.name) + "(");
    ASSERT_NE(entry, std::string::npos);
    // The left border of the first row of pixels (the top border row is a tap the blocks skip:
    // schedule/cpu_conv_border.h).
    const std::vector<std::int64_t>& padded = plan.tensor("I_padded").shape;
    planted.insert(planted.find("\n}\n", entry) + 1,
                   "  I_padded[" + std::to_string(padded[2] * padded[3]) + "] = 1.0f;\n");
    std::optional<reference::TensorData> first;
    for (const std::uint64_t seed : {42u, 43u}) {
      SCOPED_TRACE(example + " seed " + std::to_string(seed));
      const RunReport report = run_program(program, cpu_run_request(seed));
      EXPECT_TRUE(report.check.ok) << report.check.to_string();
      if (!first) first = report.outputs;
      else EXPECT_FALSE(report.outputs == *first) << "the inputs did not change";
      RunRequest request = cpu_run_request(seed);
      request.kernel_source = planted;
      EXPECT_EQ(run_program(program, request).check.ok, seed == 42u);
    }
  }
}

// The check is not vacuous: a wrong tap offset in A (the outer tap one row too far) fails it.
TEST(ConvExampleCpuPlan, AWrongTapOffsetFailsTheCheck) {
  const ConvCase c = conv_cases()[8];  // conv2d_bias_relu: padded, bias and ReLU
  const Program program = compile_text(example_text(c.example), c.sizes, c.example + ".tc");
  CpuPlan plan = plan_cpu(program);
  for (CpuStage& stage : plan.stages)
    for (CpuMatmul& matmul : stage.matmuls)
      if (matmul.conv) matmul.conv->taps.front().a_stride += matmul.k;  // one input column too far
  RunRequest request = cpu_request();
  request.kernel_source = emit_cpu(plan, program);
  const RunReport report = run_program(program, request);
  EXPECT_FALSE(report.check.ok);
}

// The checks are not vacuous for the filter's panels, packed per block (a KRSC filter: r and s
// exchanged in the copy) or by a copy stage (OIHW: two of its dimensions swapped), nor for the
// folded 1x1 (its last pixel row dropped): each fails.
TEST(ConvExampleCpuPlan, AWrongFilterCopyOrFoldFailsTheCheck) {
  {
    const ConvCase c = conv_cases()[1];  // conv2d: H 5, W 11, C 6, K 7, a 3x3 filter
    const Program program = compile_text(example_text(c.example), c.sizes, c.example + ".tc");
    CpuPlan plan = plan_cpu(program);
    bool planted = false;
    for (CpuStage& stage : plan.stages)
      for (CpuMatmul& matmul : stage.matmuls)
        if (matmul.conv && matmul.conv->panel_per_block) {
          std::swap(matmul.conv->taps[0].filter_stride, matmul.conv->taps[1].filter_stride);
          planted = true;
        }
    ASSERT_TRUE(planted) << to_string(plan);
    RunRequest request = cpu_request();
    request.kernel_source = emit_cpu(plan, program);
    EXPECT_FALSE(run_program(program, request).check.ok);
  }
  {
    const std::string text =
        "def oihw(f32(N, H, W, C) I, f32(K, C, R, S) F) -> (f32(N, H, W, K) O) {\n"
        "  O(n, h, w, k) +=! I(n, h + r - 1, w + s - 1, c) * F(k, c, r, s) where I = 0 outside\n}\n";
    const Program program =
        compile_text(text, {{"N", 1}, {"H", 5}, {"W", 6}, {"C", 7}, {"K", 9}, {"R", 3}, {"S", 3}}, "oihw.tc");
    CpuPlan plan = plan_cpu(program);
    bool planted = false;
    for (CpuStage& stage : plan.stages)
      if (stage.permute) {
        std::swap(stage.permute->from_dim[0], stage.permute->from_dim[1]);  // r and s exchanged
        planted = true;
      }
    ASSERT_TRUE(planted) << to_string(plan);
    RunRequest request = cpu_request();
    request.kernel_source = emit_cpu(plan, program);
    EXPECT_FALSE(run_program(program, request).check.ok);
  }
  {
    const ConvCase c = conv_cases()[4];  // conv2d_1x1: M = 2 * 9 * 7
    const Program program = compile_text(example_text(c.example), c.sizes, c.example + ".tc");
    CpuPlan plan = plan_cpu(program);
    ASSERT_EQ(plan.stages.size(), 1u);
    plan.stages[0].m_extent -= 7;  // the last image row not computed
    RunRequest request = cpu_request();
    request.kernel_source = emit_cpu(plan, program);
    EXPECT_FALSE(run_program(program, request).check.ok);
  }
}

// A batched GEMM folds its batch into the rows when B is shared (A(b, m, k) B(k, n)), not
// when B follows the batch (B(b, k, n)); nor does a 1x1 whose epilogue reads a value per
// (n, h) (v(n, h)): a BRGEMM per batch index remains. All exact.
TEST(ConvExampleCpuPlan, BatchIndicesFoldOnlyWhereEveryAccessFollowsTheRows) {
  const std::vector<std::pair<std::string, std::size_t>> cases = {
      {"def shared(f32(X, M, K) A, f32(K, N) B) -> (f32(X, M, N) C) {\n"
       "  C(b, m, n) +=! A(b, m, k) * B(k, n)\n}\n",
       0u},
      {"def batched(f32(X, M, K) A, f32(X, K, N) B) -> (f32(X, M, N) C) {\n"
       "  C(b, m, n) +=! A(b, m, k) * B(b, k, n)\n}\n",
       1u},
      {"def per_row(f32(N, H, W, C) I, f32(K, C) F, f32(N, H) v) -> (f32(N, H, W, K) O) {\n"
       "  Y(n, h, w, k) +=! I(n, h, w, c) * F(k, c)\n  O(n, h, w, k) = Y(n, h, w, k) * v(n, h)\n}\n",
       2u},
  };
  for (const auto& [text, batch_left] : cases) {
    SCOPED_TRACE(text);
    const Program program =
        compile_text(text, {{"M", 5}, {"K", 3}, {"N", 2}, {"X", 3}, {"H", 3}, {"W", 4}, {"C", 3}}, "fold.tc");
    const CpuPlan plan = plan_cpu(program);
    ASSERT_EQ(plan.stages.size(), 1u) << to_string(plan);
    EXPECT_EQ(plan.stages[0].batch_names.size(), batch_left) << to_string(plan);
    const RunReport report = run_program(program, cpu_request());
    EXPECT_TRUE(report.check.ok) << report.check.to_string();
  }
}

// A filter stored OIHW (PyTorch's F(k, c, r, s)): reordered into [taps, c, k] like KRSC;
// and a small L2 makes the output-channel blocks narrow (32) so several share the filter
// slice in turn; both exact.
TEST(ConvExampleCpuPlan, AnOihwFilterAndNarrowChannelBlocks) {
  const std::string text =
      "def oihw(f32(N, H, W, C) I, f32(K, C, R, S) F) -> (f32(N, H, W, K) O) {\n"
      "  O(n, h, w, k) +=! I(n, h + r - 1, w + s - 1, c) * F(k, c, r, s) where I = 0 outside\n}\n";
  const Program program =
      compile_text(text, {{"N", 1}, {"H", 5}, {"W", 6}, {"C", 37}, {"K", 70}, {"R", 3}, {"S", 3}}, "oihw.tc");
  RunRequest request = cpu_request();
  request.cpu_schedule.target.l2_bytes = 64 * 1024;  // 9 taps x 37 channels x 32 x 4 bytes = 42 KiB: nc = 32
  const CpuPlan plan = plan_cpu(program, request.cpu_schedule);
  const CpuMatmul* conv = conv_main(plan);
  ASSERT_NE(conv, nullptr) << to_string(plan);
  EXPECT_TRUE(conv->conv->filter_packed);
  for (const CpuStage& stage : plan.stages)
    if (!stage.matmuls.empty()) {
      EXPECT_EQ(stage.blocking.nc, 32) << to_string(plan);
    }
  const RunReport report = run_program(program, request);
  EXPECT_TRUE(report.check.ok) << report.check.to_string();
}

// Wide channel counts: the filter (K = 256) goes into panels of the column block, packed per
// block, so B's rows are the panel's width apart, not K; the padded input's pixels an odd number
// of cache lines apart (C = 256: 272); C (K = 256 f32, rows 1 KiB apart) accumulates in a block
// buffer, loaded first for `+=`. Exact.
TEST(ConvExampleCpuPlan, WideChannelsSpreadOverCacheSets) {
  const std::string text =
      "def wide(f32(N, H, W, C) I, f32(K, R, S, C) F, f32(N, H, W, K) O0) -> (f32(N, H, W, K) O) {\n"
      "  O(n, h, w, k) = O0(n, h, w, k)\n"
      "  O(n, h, w, k) += I(n, h + r - 1, w + s - 1, c) * F(k, r, s, c) where I = 0 outside\n}\n";
  const Program program =
      compile_text(text, {{"N", 1}, {"H", 3}, {"W", 4}, {"C", 256}, {"K", 256}, {"R", 3}, {"S", 2}}, "wide.tc");
  const CpuPlan plan = plan_cpu(program);
  const CpuMatmul* conv = conv_main(plan);
  ASSERT_NE(conv, nullptr) << to_string(plan);
  EXPECT_TRUE(conv->conv->panel_per_block) << to_string(plan);
  EXPECT_EQ(conv->b.tensor, "F");
  EXPECT_GE(conv->conv->filter_panel, 32);
  EXPECT_LT(conv->conv->filter_panel, 256) << to_string(plan);
  EXPECT_EQ(plan.tensor(conv->a.tensor).shape, (std::vector<std::int64_t>{1, 5, 5, 272})) << to_string(plan);
  EXPECT_EQ(conv->conv->lda, 272);
  const std::string code = emit_cpu(plan, program);
  EXPECT_NE(code.find("first touch: the current O, into the block buffer"), std::string::npos) << code;
  const RunReport report = run_program(program, cpu_request());
  EXPECT_TRUE(report.check.ok) << report.check.to_string();
}

// The filter's panels packed per block, several of them with a narrower last one (K = 70 in
// panels of 32: 32, 32, 6), from a KRSC filter (a transposition) and from an RSCK one (rows
// copied: K longer than a block), on 1 and 2 threads (two threads may each pack one panel):
// exact, the same bits.
TEST(ConvExampleCpuPlan, FilterPanelsPackedPerBlock) {
  const std::vector<std::string> filters = {"F(k, r, s, c)", "F(r, s, c, k)"};
  for (const std::string& filter : filters) {
    SCOPED_TRACE(filter);
    const std::string declared = filter == filters[0] ? "f32(K, R, S, C) F" : "f32(R, S, C, K) F";
    const std::string text = "def panels(f32(N, H, W, C) I, " + declared +
                             ") -> (f32(N, H, W, K) O) {\n"
                             "  O(n, h, w, k) +=! I(n, h + r - 1, w + s - 1, c) * " + filter +
                             " where I = 0 outside\n}\n";
    const Program program =
        compile_text(text, {{"N", 2}, {"H", 5}, {"W", 6}, {"C", 37}, {"K", 70}, {"R", 3}, {"S", 3}}, "panels.tc");
    RunRequest request = cpu_request();
    request.cpu_schedule.target.l2_bytes = 64 * 1024;  // nc = 32
    request.cpu_schedule.min_parallel_flops = 0;
    std::optional<reference::TensorData> one_thread;
    for (int threads : {1, 2}) {
      request.cpu_schedule.threads = threads;
      const CpuPlan plan = plan_cpu(program, request.cpu_schedule);
      const CpuMatmul* conv = conv_main(plan);
      ASSERT_NE(conv, nullptr) << to_string(plan);
      EXPECT_TRUE(conv->conv->panel_per_block) << to_string(plan);
      EXPECT_EQ(conv->conv->filter_panel, 32) << to_string(plan);
      const RunReport report = run_program(program, request);
      EXPECT_TRUE(report.check.ok) << threads << " threads: " << report.check.to_string();
      if (!one_thread) one_thread = report.outputs;
      else EXPECT_TRUE(report.outputs == *one_thread) << "2 threads differ from 1";
    }
  }
}

// A value other than zero read outside the input: the padded copy holds zeros, so the
// statement stays a loop nest, and the schedule says why; it matches the reference.
TEST(ConvExampleCpuPlan, ANonZeroBoundaryValueKeepsTheLoopNest) {
  const std::string text =
      "def conv(f32(N, H, W, C) I, f32(K, R, S, C) F) -> (f32(N, H, W, K) O) {\n"
      "  O(n, h, w, k) +=! I(n, h + r - 1, w + s - 1, c) * F(k, r, s, c) where I = 1 outside\n}\n";
  const Program program = compile_text(text, conv_cases()[0].sizes, "conv.tc");
  const CpuPlan plan = plan_cpu(program);
  ASSERT_EQ(plan.stages.size(), 1u);
  ASSERT_TRUE(plan.stages[0].loop_nest);
  EXPECT_NE(to_string(plan).find("the value read outside the input is not zero"), std::string::npos) << to_string(plan);
  const RunReport report = run_program(program, cpu_request());
  EXPECT_TRUE(report.check.ok) << report.check.to_string();
}

// Strides and dilations that differ per dimension, asymmetric padding, a filter stored as
// [taps, c, k] (no packing copy) and `+=` onto an f16 output: the same path, exact.
TEST(ConvExampleCpuPlan, DilatedStridedUnpackedAccumulating) {
  const std::string text =
      "def dil(f16(N, H, W, C) I, f16(R, S, C, K) F, f16(N, P, Q, K) O0) -> (f16(N, P, Q, K) O) {\n"
      "  O(n, h, w, k) = O0(n, h, w, k)\n"
      "  O(n, h, w, k) += I(n, 2*h + 2*r - 2, w + 2*s - 1, c) * F(r, s, c, k) where I = 0 outside\n}\n";
  const Program program = compile_text(
      text, {{"N", 1}, {"H", 8}, {"W", 9}, {"C", 5}, {"K", 7}, {"R", 3}, {"S", 2}, {"P", 4}, {"Q", 9}}, "dil.tc");
  const CpuPlan plan = plan_cpu(program);
  const CpuMatmul* conv = conv_main(plan);
  ASSERT_NE(conv, nullptr) << to_string(plan);
  EXPECT_FALSE(conv->conv->filter_packed);
  EXPECT_FALSE(conv->zero_init);
  EXPECT_EQ(conv->conv->taps.back().a_stride, 2 * 5);  // s: dilation 2 times C
  const RunReport report = run_program(program, cpu_request());
  EXPECT_TRUE(report.check.ok) << report.check.to_string();
}

INSTANTIATE_TEST_SUITE_P(Examples, ConvExampleCpu, ::testing::ValuesIn(conv_cases()),
                         [](const auto& info) { return conv_case_name(info.param); });

}  // namespace
}  // namespace polyfuse::testing
