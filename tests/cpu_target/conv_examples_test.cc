// The convolutions (examples/conv2d*.tc, issue 24) on the CPU target: plain loop nests
// (codegen/cpu_loop_nest.h) with index expressions and zero padding, run through the driver
// on random inputs and checked against the exact reference, at the small odd shapes of
// tests/support/conv_shapes.h (C = 3, stride 2, H, W, C, K multiples of nothing).
#include <gtest/gtest.h>

#include "codegen/cpu_emit.h"
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

INSTANTIATE_TEST_SUITE_P(Examples, ConvExampleCpu, ::testing::ValuesIn(conv_cases()),
                         [](const auto& info) { return conv_case_name(info.param); });

}  // namespace
}  // namespace polyfuse::testing
