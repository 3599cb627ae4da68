// Convolutions as implicit GEMMs on the mma.sync path (issue 24 item 2; schedule/implicit_gemm.h,
// codegen/implicit_gemm_kernel.h), run on the emulator against the exact reference. Each case
// asserts that the plan took the implicit GEMM, at small odd shapes: M = N*P*Q, K (output
// channels) and R*S*C multiples of none of the 64 x 64 x 32 tiles; C = 3, 8, 16 or 24; stride 2
// with padding 1; a 1x1 filter; the bias + ReLU and residual epilogues; grouped convolutions (one
// GEMM per group on blockIdx.z). The emulator checks every access, so a gathered read of a
// padding tap that left the input would fail the run; the planted bugs below show that it does.
#include <gtest/gtest.h>

#include <regex>

#include "codegen/cuda_plan.h"
#include "emu_harness.h"
#include "gemm_programs.h"
#include "polyfuse/errors.h"
#include "schedule/program_plan.h"
#include "support/conv_shapes.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

// An example with its f32 tensors made `type`.
Program typed_example(const std::string& example, const std::string& type, const SizeBindings& sizes) {
  return compile_program(std::regex_replace(example_source(example), std::regex(R"(\bf32\()"), type + "("), sizes);
}

GpuOptions sm80() {
  GpuOptions options;
  options.arch = Arch::sm_80;
  return options;
}

// A convolution example at one shape with its tensors of one type ("f32": the example as it
// is, on TF32 or 3xTF32 tensor cores as `f32`), a ring of `stages`; `label` names the test.
struct TypedConv {
  std::string label, type;
  ConvCase conv;
  F32Matmul f32 = F32Matmul::tf32;
  int stages = 2;
};

class ImplicitGemmEmu : public ::testing::TestWithParam<TypedConv> {};

TEST_P(ImplicitGemmEmu, MatchesTheReference) {
  const TypedConv& c = GetParam();
  const Program program = typed_example(c.conv.example, c.type, c.conv.sizes);
  const ProgramPlan plan = plan_program(program, recognize_idioms(program), c.f32);
  ASSERT_EQ(plan.kernels.size(), 1u) << to_string(plan, program);
  EXPECT_EQ(plan.kernels[0].kind, PlannedKernelKind::implicit_gemm) << to_string(plan, program);
  EXPECT_EQ(plan.kernels[0].statements.size(), program.statements.size()) << "the epilogues fused";
  GpuOptions options = sm80();
  options.f32_matmul = c.f32;
  options.stages = c.stages;
  const EmuRun run = run_on_emulator(program, options);
  EXPECT_TRUE(run.check.ok) << run.check.to_string() << "\n" << to_string(plan, program);
}

const SizeBindings image{{"N", 2}, {"H", 9}, {"W", 7}};

// `sizes` with `more` bound (replacing a value).
SizeBindings with(SizeBindings sizes, const SizeBindings& more) {
  for (const auto& binding : more) sizes[binding.first] = binding.second;
  return sizes;
}

INSTANTIATE_TEST_SUITE_P(
    Convolutions, ImplicitGemmEmu,
    ::testing::Values(
        // no padding, C = 24: M = 2 * 7 * 5 = 70, K = 5 output channels, R*S*C = 216 (7 k-steps
        // through a ring of 3 stages)
        TypedConv{"conv2d_f16_C24_stages3", "f16",
                  {"conv2d", with(image, {{"C", 24}, {"K", 5}, {"R", 3}, {"S", 3}})}, F32Matmul::tf32, 3},
        // stride 2, padding 1, C = 8: P = 5, Q = 4
        TypedConv{"strided_bf16_C8", "bf16",
                  {"conv2d_strided", with(image, {{"C", 8}, {"K", 5}, {"R", 3}, {"S", 3}, {"P", 5}, {"Q", 4}})}},
        // a 1x1 filter through index expressions; K = 70 output channels: two column tiles
        TypedConv{"1x1_f16_K70", "f16", {"conv2d", with(image, {{"C", 8}, {"K", 70}, {"R", 1}, {"S", 1}})}},
        TypedConv{"bias_relu_f16_C16", "f16",
                  {"conv2d_bias_relu", with(image, {{"C", 16}, {"K", 24}, {"R", 3}, {"S", 3}})}},
        TypedConv{"residual_bf16_C16", "bf16",
                  {"conv2d_residual", {{"N", 1}, {"H", 5}, {"W", 11}, {"C", 16}, {"R", 3}, {"S", 3}}}},
        // f32 operands, chunks of 4 channels: TF32, and 3xTF32 with the residual
        TypedConv{"strided_f32_C4", "f32",
                  {"conv2d_strided", with(image, {{"C", 4}, {"K", 5}, {"R", 3}, {"S", 3}, {"P", 5}, {"Q", 4}})}},
        TypedConv{"residual_f32_C12_3xtf32", "f32",
                  {"conv2d_residual", {{"N", 1}, {"H", 5}, {"W", 11}, {"C", 12}, {"R", 3}, {"S", 3}}},
                  F32Matmul::x3tf32},
        // grouped convolutions: one GEMM per group on blockIdx.z. K = 5 columns a group (its
        // stores 2 bytes wide), C = 8 channels a group (16-byte chunks at g * 16 bytes), one stage
        TypedConv{"grouped_f16_G3_C8_K5_stages1", "f16",
                  {"conv2d_grouped", with(image, {{"G", 3}, {"C", 8}, {"K", 5}, {"R", 3}, {"S", 3}})}, F32Matmul::tf32, 1},
        // ResNeXt's grouped 3x3 + bias + ReLU (the epilogue fused: each group 16-byte aligned), 4 stages
        TypedConv{"grouped_bias_relu_f16_G3_C8_K8_stages4", "f16",
                  {"conv2d_grouped_bias_relu", with(image, {{"G", 3}, {"C", 8}, {"K", 8}, {"R", 3}, {"S", 3}})},
                  F32Matmul::tf32, 4},
        TypedConv{"grouped_bias_relu_bf16_G2_C16_K24_stages3", "bf16",
                  {"conv2d_grouped_bias_relu", with(image, {{"G", 2}, {"C", 16}, {"K", 24}, {"R", 3}, {"S", 3}})},
                  F32Matmul::tf32, 3},
        // f32 (TF32): C = 3 a group, gathered element by element; K = 70: two column tiles a group
        TypedConv{"grouped_f32_G2_C3_K70", "f32",
                  {"conv2d_grouped", with(image, {{"G", 2}, {"C", 3}, {"K", 70}, {"R", 3}, {"S", 3}})}},
        TypedConv{"grouped_bias_relu_f32_G5_C4_K4_3xtf32", "f32",
                  {"conv2d_grouped_bias_relu", with(image, {{"G", 5}, {"C", 4}, {"K", 4}, {"R", 3}, {"S", 3}})},
                  F32Matmul::x3tf32}),
    [](const auto& info) { return info.param.label; });

// A dilated (2), padded (2) convolution with an RSCK filter: B is [K][N] (row-major), its rows
// of 12 channels 8-byte aligned only.
TEST(ImplicitGemmEmu, DilatedWithAnRsckFilter) {
  const Program program = compile_program(R"(def conv_rsck(f16(N, H, W, C) I, f16(R, S, C, K) F) -> (f16(N, H, W, K) O) {
  O(n, p, q, k) +=! I(n, p + 2*r - 2, q + 2*s - 2, c) * F(r, s, c, k) where p in 0:H, q in 0:W, I = 0 outside
})",
                                          with(image, {{"C", 8}, {"K", 12}, {"R", 3}, {"S", 3}}));
  const ProgramPlan plan = plan_program(program, recognize_idioms(program));
  EXPECT_EQ(plan.kernels.at(0).kind, PlannedKernelKind::implicit_gemm) << to_string(plan, program);
  EXPECT_NE(plan.kernels.at(0).step.find("B = F row-major"), std::string::npos) << plan.kernels.at(0).step;
  const EmuRun run = run_on_emulator(program, sm80());
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
}

// Depthwise convolutions, a sum into the output's values (`+=`), an input computed by an earlier
// kernel and f32 operands without tensor cores stay reduction kernels, and the plan says why.
TEST(ImplicitGemmPlan, StatesTheRuleThatKeptAConvolutionOff) {
  const SizeBindings sizes = with(image, {{"C", 8}, {"K", 5}, {"R", 3}, {"S", 3}, {"P", 5}, {"Q", 4}});
  const Program exact = compile_program(example_source("conv2d_strided"), sizes);
  const std::string exact_text = to_string(plan_program(exact, recognize_idioms(exact), F32Matmul::f32), exact);
  EXPECT_NE(exact_text.find("S0 groups as an implicit GEMM (M=(n, h, w) N=(k) K=(r, s, c) batch=()), which no "
                            "tensor-core kernel takes: `f32_matmul` f32"),
            std::string::npos)
      << exact_text;
  const Program accumulating = compile_program(
      R"(def conv_add(f16(N, H, W, C) I, f16(K, R, S, C) F, f16(N, H, W, K) O0) -> (f16(N, H, W, K) O) {
  O(n, h, w, k) = O0(n, h, w, k)
  O(n, h, w, k) += I(n, h + r - 1, w + s - 1, c) * F(k, r, s, c) where h in 0:H, w in 0:W, I = 0 outside
})",
      with(image, {{"C", 8}, {"K", 5}, {"R", 3}, {"S", 3}}));
  const std::string accumulating_text =
      to_string(plan_program(accumulating, recognize_idioms(accumulating)), accumulating);
  EXPECT_NE(accumulating_text.find("it adds to the output's values (`+=`)"), std::string::npos) << accumulating_text;
  const Program computed = compile_program(R"(def relu_conv(f16(N, H, W, C) X, f16(K, R, S, C) F) -> (f16(N, H, W, K) O) {
  I(n, h, w, c) = relu(X(n, h, w, c))
  O(n, h, w, k) +=! I(n, h + r - 1, w + s - 1, c) * F(k, r, s, c) where h in 0:H, w in 0:W, I = 0 outside
})",
                                           with(image, {{"C", 8}, {"K", 5}, {"R", 3}, {"S", 3}}));
  const std::string computed_text = to_string(plan_program(computed, recognize_idioms(computed)), computed);
  EXPECT_NE(computed_text.find("I is computed in the def (an earlier kernel's result, in the plan's f32 workspace)"),
            std::string::npos)
      << computed_text;
  const Program depthwise =
      typed_example("conv2d_grouped", "f16", with(image, {{"G", 16}, {"C", 1}, {"K", 1}, {"R", 3}, {"S", 3}}));
  const std::string depthwise_text = to_string(plan_program(depthwise, recognize_idioms(depthwise)), depthwise);
  EXPECT_NE(depthwise_text.find("it is a depthwise convolution (one input channel c per group): memory-bound"),
            std::string::npos)
      << depthwise_text;
  // a group index that is not the output's last but its channel
  const Program group_first = compile_program(R"(def group_first(f16(N, H, W, G, C) I, f16(G, K, R, S, C) F) -> (O) {
  O(g, n, h, w, k) +=! I(n, h + r, w + s, g, c) * F(g, k, r, s, c)
})",
                                              with(image, {{"G", 2}, {"C", 8}, {"K", 8}, {"R", 3}, {"S", 3}}));
  const std::string group_first_text = to_string(plan_program(group_first, recognize_idioms(group_first)), group_first);
  EXPECT_NE(group_first_text.find("a grouped convolution's group indices must be the output's last but its channel k"),
            std::string::npos)
      << group_first_text;
}

// C = 3 (a first layer: a 16-byte chunk would span taps), stride 2, padding 1, K = 27 (one
// k-step, its tail zero): an implicit GEMM whose copy gathers A element by element.
TEST(ImplicitGemmPlanEmu, ThreeChannelsRunAsAnImplicitGemmByElement) {
  const Program program =
      typed_example("conv2d_strided", "f16", with(image, {{"C", 3}, {"K", 5}, {"R", 3}, {"S", 3}, {"P", 5}, {"Q", 4}}));
  const ProgramPlan plan = plan_program(program, recognize_idioms(program));
  EXPECT_EQ(plan.kernels.at(0).kind, PlannedKernelKind::implicit_gemm) << to_string(plan, program);
  EXPECT_NE(to_string(plan, program).find("A = I_im2col gathered from I element by element (its channels are not "
                                          "whole 16-byte chunks)"),
            std::string::npos)
      << to_string(plan, program);
  const EmuRun run = run_on_emulator(program, sm80());
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
}

// `program` with one line of its kernel replaced: the run must fail, by a wrong result or by the
// emulator's report of a read outside a buffer.
std::string failure_of(const Program& program, const std::string& line, const std::string& replacement) {
  EmuRunOptions how;
  int edits = 0;
  how.edit = [&](const std::string& source) {
    std::string edited = source;
    const std::size_t at = edited.find(line);
    if (at != std::string::npos) {
      edited.replace(at, line.size(), replacement);
      ++edits;
    }
    return edited;
  };
  std::string failure;
  try {
    const EmuRun run = run_on_emulator(program, sm80(), how);
    if (!run.check.ok) failure = "check: " + run.check.to_string();
  } catch (const EmulatorError& e) {
    failure = std::string("emulator: ") + e.what();
  }
  EXPECT_EQ(edits, 1) << "the edit found its line";
  return failure;
}

// The padded strided convolution with one line of its kernel replaced.
std::string failure_with(const std::string& line, const std::string& replacement) {
  return failure_of(
      typed_example("conv2d_strided", "f16", with(image, {{"C", 8}, {"K", 5}, {"R", 3}, {"S", 3}, {"P", 5}, {"Q", 4}})),
      line, replacement);
}

TEST(ImplicitGemmEmu, PlantedBugsFail) {
  // no zero-fill: the padding taps read before I's start (row 0, column 0 at tap (0, 0))
  const std::string unguarded = failure_with("if (in1 < 0 || in1 >= 9 || in2 < 0 || in2 >= 7) return nullptr;", "");
  EXPECT_NE(unguarded.find("emulator: "), std::string::npos) << unguarded;
  // a wrong row coordinate, hoisted before the k-loop (the input row one further down): wrong
  // values, inside the buffer
  const std::string shifted = failure_with("in1 = 2 * h - 1", "in1 = 2 * h");
  EXPECT_NE(shifted.find("check: "), std::string::npos) << shifted;
  // a wrong row offset (the image's stride one row short)
  const std::string row_offset = failure_with("(((long long)n * 9 + in1) * 7", "(((long long)n * 8 + in1) * 7");
  EXPECT_NE(row_offset.find("check: "), std::string::npos) << row_offset;
  // a wrong tap offset, per k-step (the filter's s ignored): wrong values, or a read before I
  const std::string tap_offset = failure_with("return {56 * r + 8 * s + c, r, s, true};", "return {56 * r + c, r, s, true};");
  EXPECT_FALSE(tap_offset.empty());
}

// ResNeXt's downsampling grouped 3x3: stride 2, padding 1, f16, 3 groups of C = 8 -> K = 8, with
// bias + ReLU fused (for sm_90a: the same mma.sync kernel); and with K = 5 a group (a group's bias
// not 16-byte aligned), the epilogue is a kernel of its own and the plan says why.
const char* const grouped_strided = R"(def grouped_strided(f16(N, H, W, G, C) I, f16(G, K, R, S, C) F, f16(G, K) bias) -> (f16(N, P, Q, G, K) O) {
  Y(n, p, q, g, k) +=! I(n, 2*p + r - 1, 2*q + s - 1, g, c) * F(g, k, r, s, c) where p in 0:P, q in 0:Q, I = 0 outside
  O(n, p, q, g, k) = relu(Y(n, p, q, g, k) + bias(g, k))
})";

TEST(ImplicitGemmEmu, GroupedStridedPaddedWithBiasRelu) {
  for (const std::int64_t k : {8, 5}) {
    SCOPED_TRACE("K = " + std::to_string(k));
    const Program program = compile_program(
        grouped_strided, with(image, {{"G", 3}, {"C", 8}, {"K", k}, {"R", 3}, {"S", 3}, {"P", 5}, {"Q", 4}}));
    const ProgramPlan plan = plan_program(program, recognize_idioms(program));
    ASSERT_EQ(plan.kernels.size(), k == 8 ? 1u : 2u) << to_string(plan, program);
    EXPECT_EQ(plan.kernels[0].kind, PlannedKernelKind::implicit_gemm) << to_string(plan, program);
    if (k == 5) {
      EXPECT_NE(plan.kernels[0].cut.find("(a grouped convolution's: the tensors they read hold each group's channels in "
                                         "whole 16-byte chunks)"),
                std::string::npos)
          << plan.kernels[0].cut;
    }
    GpuOptions options = sm80();
    if (k == 8) options.arch = Arch::sm_90a;
    const EmuRun run = run_on_emulator(program, options);
    EXPECT_TRUE(run.check.ok) << run.check.to_string() << "\n" << to_string(plan, program);
  }
}

// A grouped filter stored [R][S][C][G][K]: B row-major over N = (g, k), a group's 5 columns 10
// bytes apart (its copy 2 bytes wide).
TEST(ImplicitGemmEmu, GroupedWithAnRscgkFilter) {
  const Program program = compile_program(R"(def grouped_rscgk(f16(N, H, W, G, C) I, f16(R, S, C, G, K) F) -> (f16(N, H, W, G, K) O) {
  O(n, h, w, g, k) +=! I(n, h + r - 1, w + s - 1, g, c) * F(r, s, c, g, k) where h in 0:H, w in 0:W, I = 0 outside
})",
                                          with(image, {{"G", 3}, {"C", 8}, {"K", 5}, {"R", 3}, {"S", 3}}));
  const ProgramPlan plan = plan_program(program, recognize_idioms(program));
  EXPECT_EQ(plan.kernels.at(0).kind, PlannedKernelKind::implicit_gemm) << to_string(plan, program);
  EXPECT_NE(plan.kernels.at(0).step.find("one GEMM per group (g); A = I_im2col gathered from I in the copy to shared "
                                         "memory (never in memory), B = F row-major"),
            std::string::npos)
      << plan.kernels.at(0).step;
  const EmuRun run = run_on_emulator(program, sm80());
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
}

TEST(ImplicitGemmEmu, PlantedGroupBugsFail) {
  const Program program =
      typed_example("conv2d_grouped", "f16", with(image, {{"G", 3}, {"C", 8}, {"K", 5}, {"R", 3}, {"S", 3}}));
  // the group's input channels left out of the rows' offset: every group reads group 0's channels
  const std::string input_group = failure_of(program, "* 3 + g) * 8, true};", "* 3) * 8, true};");
  EXPECT_NE(input_group.find("check: "), std::string::npos) << input_group;
  // every group's k-step 0 multiplied by group 0's filter rows (B_g's offset dropped)
  const std::string filter_group =
      failure_of(program, "F + (long long)col0 * 72, 72,", "F + (long long)(col0 % 5) * 72, 72,");
  EXPECT_NE(filter_group.find("check: "), std::string::npos) << filter_group;
}

// Tensors named like the kernel's own identifiers (smem, warp, acc, tile, row0) and a group index
// named like one of its locals (col_end): the kernel spells those tensors `name_` in the program and
// in the plan's view alike (codegen/tensor_identifiers.h), the index variable `col_end_`, and runs.
TEST(ImplicitGemmEmu, TensorsNamedLikeTheKernelsIdentifiers) {
  const Program program = compile_program(
      R"(def clash(f16(N, H, W, G, C) acc, f16(G, K, R, S, C) tile, f16(G, K) warp) -> (f16(N, H, W, G, K) smem) {
  row0(n, h, w, col_end, k) +=! acc(n, h + r - 1, w + s - 1, col_end, c) * tile(col_end, k, r, s, c) where h in 0:H, w in 0:W, acc = 0 outside
  smem(n, h, w, col_end, k) = relu(row0(n, h, w, col_end, k) + warp(col_end, k))
})",
      with(image, {{"G", 2}, {"C", 8}, {"K", 8}, {"R", 3}, {"S", 3}}));
  const ProgramPlan plan = plan_program(program, recognize_idioms(program));
  ASSERT_EQ(plan.kernels.size(), 1u) << to_string(plan, program);
  EXPECT_EQ(plan.kernels[0].kind, PlannedKernelKind::implicit_gemm) << to_string(plan, program);
  CudaEmitRequest request;
  request.options = sm80();
  request.helpers = CudaEmitRequest::Helpers::include;
  const EmittedPlan emitted = emit_cuda_plan(program, plan, request);
  EXPECT_NE(emitted.source.find("const __half* __restrict__ warp_, __half* __restrict__ smem_)"), std::string::npos)
      << emitted.source;
  EXPECT_NE(emitted.source.find("const int col_end_ = blockIdx.z;"), std::string::npos) << emitted.source;
  std::vector<std::string> parameters;
  for (const KernelParameter& p : emitted.kernels.at(0).parameters) parameters.push_back(p.name);
  EXPECT_EQ(parameters, (std::vector<std::string>{"acc", "tile", "warp", "smem"}));  // the program's names
  const EmuRun run = run_on_emulator(program, sm80());
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
}

}  // namespace
}  // namespace polyfuse
