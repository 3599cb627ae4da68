// Pixels in vectors (schedule/cpu_conv.h's pixels_in_vectors_dim): a grouped convolution with
// fewer than 16 output channels per group and at least 16 output columns reads a copy of its
// input with the pixel column innermost, accumulates each block column-major and stores it
// through a transposition. Which convolutions take it and which do not, the plan and code it
// makes, results against the exact reference at odd shapes (padding, a `+=` into a current
// output, bias + ReLU after it) on 1 and 2 threads with the same bits, and planted errors in
// the copy's layout and the channel stride that the check catches; the golden schedule and code.
#include <gtest/gtest.h>

#include "codegen/cpu_emit.h"
#include "runtime/api/run_program.h"
#include "support/golden.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

// The convolution of `plan`, or nullptr.
const CpuMatmul* conv_of(const CpuPlan& plan) {
  for (const CpuStage& stage : plan.stages)
    for (const CpuMatmul& matmul : stage.matmuls)
      if (matmul.conv) return &matmul;
  return nullptr;
}

// The input copy stage of `plan`, or nullptr.
const CpuPadCopy* input_copy(const CpuPlan& plan) {
  for (const CpuStage& stage : plan.stages)
    if (stage.pad) return &*stage.pad;
  return nullptr;
}

// G groups of C input and K output channels, 19 output columns (odd: a vector and a masked
// one), padding 1.
const SizeBindings kGrouped = {{"N", 2}, {"H", 3}, {"W", 19}, {"G", 3}, {"C", 5}, {"K", 7}, {"R", 3}, {"S", 3}};

TEST(PixelsInVectors, GroupedConvolutionsWithFewChannelsTakeIt) {
  // conv2d_grouped reads inside its input (17 output columns), conv2d_grouped_bias_relu pads it.
  for (const std::string example : {"conv2d_grouped", "conv2d_grouped_bias_relu"}) {
    SCOPED_TRACE(example);
    const bool padded = example == "conv2d_grouped_bias_relu";
    const std::int64_t row = padded ? 21 : 19;  // the copy's pixel row: W (+ 2)
    const Program program = compile_text(example_text(example), kGrouped, example + ".tc");
    const CpuPlan plan = plan_cpu(program);
    const CpuMatmul* conv = conv_of(plan);
    ASSERT_NE(conv, nullptr) << to_string(plan);
    // I [N, H, W, G, C] copied as [N, H (+ 2), G, C, W (+ 2)]: channels a pixel row apart.
    EXPECT_EQ(conv->conv->a_channel_stride, row) << to_string(plan);
    EXPECT_EQ(conv->conv->lda, 1);
    const CpuPadCopy* copy = input_copy(plan);
    ASSERT_NE(copy, nullptr) << to_string(plan);
    EXPECT_EQ(copy->innermost_dim, std::optional<std::size_t>(2));
    EXPECT_EQ(plan.tensor(copy->to).shape, (std::vector<std::int64_t>{2, padded ? 5 : 3, 3, 5, row})) << to_string(plan);
    EXPECT_NE(to_string(plan).find("pixel-major (pixels in vectors: channels " + std::to_string(row) + " apart"),
              std::string::npos)
        << to_string(plan);
    const std::string code = emit_cpu(plan, program);
    EXPECT_NE(code.find(".a_layout = Layout::col_major, .b_layout = Layout::row_major, .c_layout = Layout::col_major"),
              std::string::npos)
        << code;
    EXPECT_NE(code.find(padded ? "Y's block is pixel-major in a block buffer, transposed into O's"
                               : "the pixel-major block buffer transposed into O"),
              std::string::npos)
        << code;
  }
}

// The golden schedule and code of ResNeXt's grouped 3x3 + bias + ReLU at the odd shape.
TEST(PixelsInVectors, GoldenScheduleAndCode) {
  const Program program =
      compile_text(example_text("conv2d_grouped_bias_relu"), kGrouped, "examples/conv2d_grouped_bias_relu.tc");
  CpuScheduleOptions options;
  options.min_parallel_flops = 0;  // the parallel loops, at this small size too
  const CpuPlan plan = plan_cpu(program, options);
  EXPECT_TRUE(matches_golden(to_string(plan), "cpu/conv2d_grouped_bias_relu_pixels.schedule"));
  EXPECT_TRUE(matches_golden(emit_cpu(plan, program), "cpu/conv2d_grouped_bias_relu_pixels.cpp"));
}

TEST(PixelsInVectors, OtherConvolutionsKeepChannelsInVectors) {
  const auto a_channel_stride = [](const std::string& text, const SizeBindings& sizes) {
    const Program program = compile_text(text, sizes, "conv.tc");
    const CpuPlan plan = plan_cpu(program);
    const CpuMatmul* conv = conv_of(plan);
    EXPECT_NE(conv, nullptr) << to_string(plan);
    return conv ? conv->conv->a_channel_stride : -1;
  };
  SizeBindings sizes = kGrouped;
  sizes["K"] = 16;  // a whole vector of output channels
  EXPECT_EQ(a_channel_stride(example_text("conv2d_grouped"), sizes), 0);
  sizes = kGrouped;
  sizes["W"] = 15;  // fewer columns than a vector
  EXPECT_EQ(a_channel_stride(example_text("conv2d_grouped"), sizes), 0);
  // f16: the kernel packs (and widens) its operands anyway
  EXPECT_EQ(a_channel_stride(example_text("conv2d_grouped", "f16"), kGrouped), 0);
  // Not grouped: pointwise statements join the convolution's stage and read its block row-major.
  EXPECT_EQ(a_channel_stride(example_text("conv2d_bias_relu"),
                             {{"N", 1}, {"H", 3}, {"W", 19}, {"C", 5}, {"K", 7}, {"R", 3}, {"S", 3}}),
            0);
  // Stride 2: the pixels are not contiguous in any copy of the input.
  const std::string strided =
      "def g2(f32(N, H, W, G, C) I, f32(G, K, R, S, C) F) -> (f32(N, P, Q, G, K) O) {\n"
      "  O(n, p, q, g, k) +=! I(n, 2*p + r - 1, 2*q + s - 1, g, c) * F(g, k, r, s, c) where I = 0 outside\n}\n";
  EXPECT_EQ(a_channel_stride(strided, {{"N", 1}, {"H", 5}, {"W", 37}, {"G", 2}, {"C", 3}, {"K", 5}, {"R", 3},
                                       {"S", 3}, {"P", 3}, {"Q", 19}}),
            0);
}

// Exact against the reference, the same bits on 1 and 2 threads (small blocks: several column
// blocks per row, an edge block of 3 columns), for the examples and a `+=` into a current output
// (the first touch loads the block through a transposition).
TEST(PixelsInVectors, MatchesTheReferenceOnOneAndTwoThreads) {
  const std::string accumulate =
      "def acc(f32(N, H, W, G, C) I, f32(G, K, R, S, C) F, f32(N, H, W, G, K) O0) -> (f32(N, H, W, G, K) O) {\n"
      "  O(n, h, w, g, k) = O0(n, h, w, g, k)\n"
      "  O(n, h, w, g, k) += I(n, h + r - 1, w + s - 1, g, c) * F(g, k, r, s, c) where I = 0 outside\n}\n";
  // a residual R, which the BRGEMM's epilogue cannot add to a pixel-major block: a pass on the
  // block transposed back
  const std::string residual =
      "def res(f32(N, H, W, G, C) I, f32(G, K, R, S, C) F, f32(N, H, W, G, K) R0) -> (f32(N, H, W, G, K) O) {\n"
      "  Y(n, h, w, g, k) +=! I(n, h + r - 1, w + s - 1, g, c) * F(g, k, r, s, c) where h in 0:H, w in 0:W, I = 0 outside\n"
      "  O(n, h, w, g, k) = relu(Y(n, h, w, g, k) + R0(n, h, w, g, k))\n}\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"conv2d_grouped", example_text("conv2d_grouped")},
      {"conv2d_grouped_bias_relu", example_text("conv2d_grouped_bias_relu")},
      {"acc", accumulate},
      {"res", residual}};
  for (const auto& [name, text] : cases) {
    const Program program = compile_text(text, kGrouped, name + ".tc");
    for (const CpuBlocking& blocking : {CpuBlocking{}, CpuBlocking{16, 4, 32}}) {
      SCOPED_TRACE(name + (blocking.mc > 0 ? " small blocks" : " default blocks"));
      RunRequest request = cpu_run_request(42);
      request.cpu_schedule.blocking = blocking;
      request.cpu_schedule.min_parallel_flops = 0;
      const CpuPlan plan = plan_cpu(program, request.cpu_schedule);
      ASSERT_NE(conv_of(plan), nullptr);
      ASSERT_GT(conv_of(plan)->conv->a_channel_stride, 0) << to_string(plan);
      const std::string code = emit_cpu(plan, program);
      if (name == "acc") {
        EXPECT_NE(code.find("first touch: the current O, into the block buffer"), std::string::npos);
      }
      // the statement after the convolution joins its blocks: bias + ReLU in the BRGEMM's epilogue
      // on the pixel-major block, the residual as a pass after the transposition; Y never stored
      if (name == "conv2d_grouped_bias_relu" || name == "res") {
        EXPECT_EQ(plan.stages.back().pointwise.size(), 1u) << to_string(plan);
        EXPECT_EQ(plan.stages.back().pointwise.front().in_epilogue, name != "res") << to_string(plan);
        EXPECT_EQ(plan.tensor("Y").storage, CpuStorage::block_local) << to_string(plan);
      }
      std::optional<reference::TensorData> one_thread;
      for (int threads : {1, 2}) {
        request.cpu_schedule.threads = threads;
        const RunReport report = run_program(program, request);
        EXPECT_TRUE(report.check.ok) << threads << " threads: " << report.check.to_string() << "\n" << report.library;
        EXPECT_GT(report.check.compared, 0);
        if (!one_thread) {
          one_thread = report.outputs;
        } else {
          EXPECT_TRUE(report.outputs == *one_thread) << "2 threads differ from 1";
        }
      }
    }
  }
}

// The check is not vacuous: the copy without its transposition (a plain padded copy read as if
// pixel-major), or A's channels one element too far apart, each fail it.
TEST(PixelsInVectors, PlantedLayoutErrorsFailTheCheck) {
  const Program program = compile_text(example_text("conv2d_grouped"), kGrouped, "conv2d_grouped.tc");
  {
    CpuPlan plan = plan_cpu(program);
    bool planted = false;
    for (CpuStage& stage : plan.stages)
      if (stage.pad && stage.pad->innermost_dim) {
        stage.pad->innermost_dim.reset();
        planted = true;
      }
    ASSERT_TRUE(planted) << to_string(plan);
    RunRequest request = cpu_run_request(42);
    request.kernel_source = emit_cpu(plan, program);
    EXPECT_FALSE(run_program(program, request).check.ok);
  }
  {
    CpuPlan plan = plan_cpu(program);
    bool planted = false;
    for (CpuStage& stage : plan.stages)
      for (CpuMatmul& matmul : stage.matmuls)
        if (matmul.conv && matmul.conv->a_channel_stride > 0) {
          matmul.conv->a_channel_stride += 1;
          planted = true;
        }
    ASSERT_TRUE(planted) << to_string(plan);
    RunRequest request = cpu_run_request(42);
    request.kernel_source = emit_cpu(plan, program);
    EXPECT_FALSE(run_program(program, request).check.ok);
  }
}

}  // namespace
}  // namespace polyfuse::testing
