// Constant inputs on the CPU target (CpuScheduleOptions::constant_inputs, `--constant`): which
// packed operands the generated code keeps between calls (a GEMM's B, also with one row block; a
// convolution's filter panels), that it keeps them (values changed behind the same pointer are
// not seen until forget_constants), that another pointer or forget_constants packs again, and
// that every call gives the bits of the code without constants, on 1 and 2 threads.
#include <gtest/gtest.h>

#include <random>

#include "codegen/cpu_emit.h"
#include "frontend/diagnostics.h"
#include "runtime/cpu/cpu_module.h"
#include "schedule/cpu_plan.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

const std::string kGemm =
    "def g(f32(M, K) A, f32(K, N) B, f32(N) bias) -> (f32(M, N) D) {\n"
    "  C(m, n) +=! A(m, k) * B(k, n)\n  D(m, n) = relu(C(m, n) + bias(n))\n}\n";
const std::string kConv =
    "def conv(f32(N, H, W, C) I, f32(K, R, S, C) F, f32(K) bias) -> (f32(N, H, W, K) O) {\n"
    "  Y(n, h, w, k) +=! I(n, h + r - 1, w + s - 1, c) * F(k, r, s, c) where h in 0:H, w in 0:W, I = 0 outside\n"
    "  O(n, h, w, k) = relu(Y(n, h, w, k) + bias(k))\n}\n";

struct Case {
  std::string name, text, constant;
  SizeBindings sizes;
  CpuBlocking blocking = {};
  std::int64_t l2_bytes = 0;  // 0: the machine's
};

std::vector<Case> cases() {
  return {
      {"gemm, one row block", kGemm, "B", {{"M", 20}, {"N", 64}, {"K", 50}}},
      {"gemm, row and column blocks", kGemm, "B", {{"M", 45}, {"N", 48}, {"K", 64}}, {16, 24, 32}},
      {"conv, three panels", kConv, "F", {{"N", 2}, {"H", 5}, {"W", 6}, {"C", 19}, {"K", 70}, {"R", 3}, {"S", 3}},
       {}, 64 * 1024},
  };
}

CpuScheduleOptions options_for(const Case& c, int threads, bool constant) {
  CpuScheduleOptions options;
  options.target = default_cpu_target();
  if (c.l2_bytes) options.target.l2_bytes = c.l2_bytes;
  options.blocking = c.blocking;
  options.threads = threads;
  options.min_parallel_flops = 0;
  if (constant) options.constant_inputs = {c.constant};
  return options;
}

// The def's parameters, f32 and random, in signature order.
std::vector<std::vector<float>> buffers_for(const CpuPlan& plan, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-1.f, 1.f);
  std::vector<std::vector<float>> buffers;
  for (const CpuTensor& tensor : plan.tensors) {
    if (tensor.storage != CpuStorage::parameter) continue;
    std::int64_t count = 1;
    for (std::int64_t extent : tensor.shape) count *= extent;
    buffers.emplace_back(static_cast<std::size_t>(count));
    for (float& x : buffers.back()) x = value(rng);
  }
  return buffers;
}

// The output (the last parameter) of `module` on `buffers`, with `weights` as parameter 1.
std::vector<float> run(const cpu_runtime::CpuModule& module, std::vector<std::vector<float>> buffers,
                       std::vector<float>* weights) {
  std::vector<void*> pointers;
  for (auto& buffer : buffers) pointers.push_back(buffer.data());
  pointers[1] = weights->data();
  module(pointers.data());
  return buffers.back();
}

TEST(CpuConstants, KeptBetweenCallsUntilAnotherPointerOrForget) {
  for (const Case& c : cases())
    for (int threads : {1, 2}) {
      SCOPED_TRACE(c.name + ", " + std::to_string(threads) + " threads");
      const Program program = compile_text(c.text, c.sizes);
      const CpuPlan constant_plan = plan_cpu(program, options_for(c, threads, true));
      const CpuMatmul& matmul = [&]() -> const CpuMatmul& {
        for (const CpuStage& stage : constant_plan.stages)
          if (!stage.matmuls.empty()) return stage.matmuls.front();
        throw std::logic_error("no matmul");
      }();
      ASSERT_TRUE(matmul.b_constant) << to_string(constant_plan);
      const auto plain = cpu_runtime::CpuModule::load(emit_cpu(program, options_for(c, threads, false)),
                                                      cpu_entry_name(program.name));
      const auto kept = cpu_runtime::CpuModule::load(emit_cpu(constant_plan, program), cpu_entry_name(program.name));
      const auto buffers = buffers_for(constant_plan, 3);
      std::vector<float> weights = buffers[1], changed = weights, other = buffers_for(constant_plan, 4)[1];
      for (float& w : changed) w = -w * 0.5f;
      // A fresh generation: the library may already hold these pointers from an earlier test.
      kept.forget_constants();
      const std::vector<float> first = run(plain, buffers, &weights);
      EXPECT_EQ(run(kept, buffers, &weights), first);
      EXPECT_EQ(run(kept, buffers, &weights), first) << "a second call";
      const std::vector<float> saved = weights;
      weights = changed;  // new values behind the same pointer: the kept copy is used
      EXPECT_EQ(run(kept, buffers, &weights), first) << "the packed copy was not kept";
      kept.forget_constants();
      const std::vector<float> after = run(plain, buffers, &weights);
      EXPECT_NE(after, first);
      EXPECT_EQ(run(kept, buffers, &weights), after) << "forget_constants did not make it pack again";
      EXPECT_EQ(run(kept, buffers, &other), run(plain, buffers, &other)) << "another pointer";
      weights = saved;
    }
}

// Where nothing is kept: a filter with groups (a copy stage packs it in every call), a bias (read
// in place); the schedule says "kept" only where it is. An unknown name is refused.
TEST(CpuConstants, OnlyPackedOperandsAreKeptAndUnknownNamesRefused) {
  CpuScheduleOptions options;
  options.target = default_cpu_target();
  options.constant_inputs = {"F", "bias"};
  const Program grouped =
      compile_text(example_text("conv2d_grouped_bias_relu"),
                   {{"N", 1}, {"H", 5}, {"W", 4}, {"G", 2}, {"C", 3}, {"K", 5}, {"R", 3}, {"S", 3}});
  const CpuPlan plan = plan_cpu(grouped, options);
  for (const CpuStage& stage : plan.stages)
    for (const CpuMatmul& matmul : stage.matmuls) EXPECT_FALSE(matmul.b_constant) << to_string(plan);
  EXPECT_EQ(to_string(plan).find("kept"), std::string::npos) << to_string(plan);
  EXPECT_NE(to_string(plan).find("F: input f32 [2, 5, 3, 3, 3], parameter, constant"), std::string::npos) << to_string(plan);
  EXPECT_EQ(emit_cpu(plan, grouped).find("forget_constants"), std::string::npos);

  const Program gemm = compile_text(kGemm, {{"M", 20}, {"N", 40}, {"K", 50}});
  options.constant_inputs = {"W"};
  try {
    plan_cpu(gemm, options);
    ADD_FAILURE() << "an unknown constant input was accepted";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("constant input 'W': def 'g' has no input of that name (its inputs: A, B, bias)"),
              std::string::npos)
        << error.what();
  }
  options.constant_inputs = {"D"};  // an output
  EXPECT_THROW(plan_cpu(gemm, options), UserError);
}

}  // namespace
}  // namespace polyfuse::testing
