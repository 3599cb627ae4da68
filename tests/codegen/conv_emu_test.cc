// The convolutions (examples/conv2d*.tc, issue 24) on the GPU path, run on the emulator
// against the exact reference: C = 3, 6 or 1 are implicit GEMMs gathered element by element
// (TF32), grouped ones one GEMM per group (their epilogues, whose groups are not 16-byte
// aligned at these shapes, pointwise kernels), their padded reads guarded so that no load leaves
// a buffer (the emulator checks every access). The
// implicit GEMM is tested in implicit_gemm_emu_test.cc. Small odd shapes
// (tests/support/conv_shapes.h) keep the runs fast.
#include <gtest/gtest.h>

#include <regex>

#include "codegen/cuda_plan.h"
#include "emu_harness.h"
#include "gemm_programs.h"
#include "schedule/program_plan.h"
#include "support/conv_shapes.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

class ConvExampleEmu : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvExampleEmu, MatchesTheReference) {
  const ConvCase& c = GetParam();
  const Program program = compile_program(example_source(c.example), c.sizes);
  const ProgramPlan plan = plan_program(program, recognize_idioms(program));
  GpuOptions options;
  options.arch = Arch::sm_90;
  options.choose_warp = true;
  const EmuRun run = run_on_emulator(program, options);
  EXPECT_TRUE(run.check.ok) << run.check.to_string() << "\n" << to_string(plan, program);
}

INSTANTIATE_TEST_SUITE_P(Examples, ConvExampleEmu, ::testing::ValuesIn(conv_cases()),
                         [](const auto& info) { return conv_case_name(info.param); });

// f16 and bf16 inputs (ResNet's types).
TEST(ConvExampleEmuTypes, HalfAndBfloat) {
  const std::vector<std::pair<std::string, std::string>> cases = {{"conv2d_strided", "f16"},
                                                                   {"conv2d_bias_relu", "bf16"}};
  for (const auto& [example, dtype] : cases) {
    SCOPED_TRACE(example + " " + dtype);
    const std::string source = std::regex_replace(example_source(example), std::regex(R"(\bf32\()"), dtype + "(");
    const Program program = compile_program(source, conv_cases()[example == "conv2d_strided" ? 2 : 8].sizes);
    GpuOptions options;
    options.arch = Arch::sm_90;
    options.choose_warp = true;
    const EmuRun run = run_on_emulator(program, options);
    EXPECT_TRUE(run.check.ok) << run.check.to_string();
  }
}

// The plan says why a convolution is not an implicit GEMM (a depthwise one here: one channel a
// group; more rules in implicit_gemm_emu_test.cc).
TEST(ConvPlan, StatesWhyItIsNotAnImplicitGemm) {
  SizeBindings sizes = conv_cases()[6].sizes;
  sizes["C"] = 1;
  const Program program = compile_program(example_source("conv2d_grouped"), sizes);
  const std::string text = to_string(plan_program(program, recognize_idioms(program)), program);
  EXPECT_NE(text.find("not as an implicit GEMM on tensor cores: "), std::string::npos) << text;
}

// A padded, shifted read in the epilogue of a matmul: the matmul kernel does not take it, a
// pointwise kernel after it does.
TEST(ConvPlanEmu, ShiftedPaddedEpilogueAfterAMatmul) {
  const Program program = compile_program(R"(def gemm_shift(f16(M, K) A, f16(K, N) B, f16(M, N) X) -> (f16(M, N) D) {
  C(m, n) +=! A(m, k) * B(k, n)
  D(m, n) = relu(C(m, n) + X(m, n + 1)) where X = 0 outside
})",
                                          {{"M", 33}, {"N", 17}, {"K", 24}});
  GpuOptions options;
  options.arch = Arch::sm_90;
  options.choose_warp = true;
  const EmuRun run = run_on_emulator(program, options);
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
}

}  // namespace
}  // namespace polyfuse
