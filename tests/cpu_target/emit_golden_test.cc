// Golden files of the CPU target for every example at M = N = K = 64 (B = R = 4): the
// CPU schedule (tests/golden/cpu/<example>.schedule) and the emitted C++
// (tests/golden/cpu/<example>.cpp), with every stage of more than one block parallel
// (min_parallel_flops = 0). UPDATE_GOLDEN=1 rewrites them.
#include <gtest/gtest.h>

#include "codegen/cpu_emit.h"
#include "support/golden.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

const SizeBindings kSizes = {{"M", 64}, {"N", 64}, {"K", 64}, {"B", 4}, {"H", 2}, {"R", 4}};

class CpuGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuGolden, ScheduleAndEmittedCode) {
  const std::string name = GetParam();
  SizeBindings sizes;
  const std::string text = example_text(name);
  for (const auto& [size, value] : kSizes)
    if (text.find(size + ",") != std::string::npos || text.find(size + ")") != std::string::npos)
      sizes[size] = value;
  CpuScheduleOptions options;
  options.min_parallel_flops = 0;  // the parallel loops, at these small sizes too
  // the program emit_cpu compiles (its cheap temporaries inlined: schedule/cpu_inline.h)
  const Program program = cpu_program(compile_text(text, sizes, "examples/" + name + ".tc"), options);
  const CpuPlan plan = plan_cpu(program, options);
  EXPECT_TRUE(matches_golden(to_string(plan), "cpu/" + name + ".schedule"));
  EXPECT_TRUE(matches_golden(emit_cpu(plan, program), "cpu/" + name + ".cpp"));
}

INSTANTIATE_TEST_SUITE_P(Examples, CpuGolden, ::testing::ValuesIn(example_names()),
                         [](const auto& info) { return info.param; });

// examples/attention.tc at B = 4, S = T = D = 64: both products BRGEMM stages, the row
// statistics loop nests between them.
TEST(CpuGoldenAttention, ScheduleAndEmittedCode) {
  for (const std::string& name : attention_examples()) {
    CpuScheduleOptions options;
    options.min_parallel_flops = 0;
    const Program program = cpu_program(
        compile_text(example_text(name), {{"B", 4}, {"S", 64}, {"T", 64}, {"D", 64}}, "examples/" + name + ".tc"), options);
    const CpuPlan plan = plan_cpu(program, options);
    EXPECT_TRUE(matches_golden(to_string(plan), "cpu/" + name + ".schedule"));
    EXPECT_TRUE(matches_golden(emit_cpu(plan, program), "cpu/" + name + ".cpp"));
  }
}

// The row reductions without a matmul: the blocked plan's stages (a plain loop nest per
// reduction, codegen/cpu_loop_nest.h; the pointwise statements on vectors), schedule and code.
TEST(CpuGoldenLoopNest, RowReductionsWithoutAMatmul) {
  for (const std::string& name : loop_nest_examples()) {
    const Program program = compile_text(example_text(name), {{"M", 64}, {"N", 64}}, "examples/" + name + ".tc");
    EXPECT_TRUE(matches_golden(to_string(plan_cpu(cpu_program(program, {}))), "cpu/" + name + ".schedule"));
    EXPECT_TRUE(matches_golden(emit_cpu(program), "cpu/" + name + ".cpp"));
  }
}

// B packed once per call in the entry function and shared by every row block: two row
// blocks of 32 and two column blocks of 32 (one packed region each), k in two slices.
TEST(CpuGoldenSharedB, PackedOncePerCallForEveryRowBlock) {
  const Program program =
      compile_text(example_text("gemm_bias_relu"), {{"M", 64}, {"N", 64}, {"K", 64}}, "examples/gemm_bias_relu.tc");
  CpuScheduleOptions options;
  options.min_parallel_flops = 0;
  options.blocking = {32, 32, 32};
  EXPECT_TRUE(matches_golden(emit_cpu(plan_cpu(program, options), program), "cpu/gemm_bias_relu_shared_b.cpp"));
}

}  // namespace
}  // namespace polyfuse::testing
