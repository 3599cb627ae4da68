// Matmul chains (issue 21 item 2): an MLP whose hidden activation the program rounds to f16
// (`A(m, h) = f16(relu(T(m, h) + b1(h)))`) and whose hidden width H is more than one block
// keeps on chip (256; narrower ones are one back-to-back kernel: back_to_back_emu_test.cc) is
// a plan of two tensor-core kernels, the first with its epilogue fused and writing A to the
// workspace as f16, the second reading it as its A operand. On the emulator against the exact reference: A stored once (2 bytes an element),
// read once per block column of the second kernel, no reduction kernel; bf16 and odd shapes.
#include <gtest/gtest.h>

#include "emu_harness.h"
#include "gemm_programs.h"
#include "schedule/program_plan.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

// The bytes every kernel of the plan moved of `tensor` (a plan's stats hold one entry per
// kernel argument).
LaunchStats::Buffer buffer(const EmuRun& run, const std::string& tensor) {
  LaunchStats::Buffer total;
  for (const LaunchStats::Buffer& b : run.stats.buffers)
    if (b.name == tensor) {
      total.bytes_loaded += b.bytes_loaded;
      total.bytes_stored += b.bytes_stored;
    }
  return total;
}

// Plans `source` at `sizes`: two kernels, the second of kind `second`; runs it on the
// emulator against the reference.
std::pair<ProgramPlan, EmuRun> run_two_kernels(const std::string& source, const SizeBindings& sizes,
                                               PlannedKernelKind second) {
  Program program = compile_program(source, sizes);
  ProgramPlan plan = plan_program(program, recognize_idioms(program));
  EXPECT_EQ(plan.kernels.size(), 2u);
  if (plan.kernels.size() == 2) {
    EXPECT_EQ(plan.kernels[1].kind, second) << to_string(plan, program);
  }
  EmuRun run = run_on_emulator(program, small_tiles());
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
  return {std::move(plan), std::move(run)};
}

TEST(MatmulChainEmu, MlpRunsAsTwoTensorCoreKernels) {
  for (const SizeBindings& sizes : {SizeBindings{{"M", 32}, {"N", 64}, {"K", 32}, {"H", 272}},
                                    SizeBindings{{"M", 70}, {"N", 40}, {"K", 56}, {"H", 264}}}) {
    const auto [plan, run] = run_two_kernels(example_source("mlp"), sizes, PlannedKernelKind::fused_matmul);
    EXPECT_EQ(plan.kernels[0].kind, PlannedKernelKind::fused_matmul);
    ASSERT_EQ(plan.temporaries.size(), 1u);
    EXPECT_EQ(plan.temporaries[0].tensor, "A");
    EXPECT_EQ(plan.temporaries[0].type, ElementType::f16) << "A is f16: tensor cores take the second matmul";
    const std::int64_t m = sizes.at("M"), h = sizes.at("H");
    EXPECT_EQ(buffer(run, "A").bytes_stored, static_cast<std::uint64_t>(m * h * 2)) << "A stored once, as f16";
    const std::int64_t columns = (sizes.at("N") + small_tiles().block.n - 1) / small_tiles().block.n;
    EXPECT_EQ(buffer(run, "A").bytes_loaded, static_cast<std::uint64_t>(columns * m * h * 2))
        << "A read once per block column of the second kernel";
  }
}

TEST(MatmulChainEmu, Bf16HiddenActivation) {
  const std::string source =
      "def mlp(bf16(M, K) X, bf16(K, H) W1, bf16(H, N) W2) -> (f32(M, N) Y) {\n"
      "  T(m, h) +=! X(m, k) * W1(k, h)\n"
      "  A(m, h) = bf16(gelu_tanh(T(m, h)))\n"
      "  Y(m, n) +=! A(m, h) * W2(h, n)\n"
      "}\n";
  run_two_kernels(source, {{"M", 48}, {"N", 40}, {"K", 72}, {"H", 264}}, PlannedKernelKind::fused_matmul);
}

// Without the conversion the hidden activation is f32 (the default for what a reduction
// feeds): the second matmul has operands of two types, f32 and f16, and runs on TF32 tensor
// cores (W2 widened exactly, A rounded to TF32); the plan says so.
TEST(MatmulChainEmu, WithoutTheConversionTheSecondMatmulRunsOnTf32TensorCores) {
  const std::string source =
      "def mlp(f16(M, K) X, f16(K, H) W1, f16(H, N) W2) -> (f16(M, N) Y) {\n"
      "  T(m, h) +=! X(m, k) * W1(k, h)\n"
      "  A(m, h) = relu(T(m, h))\n"
      "  Y(m, n) +=! A(m, h) * W2(h, n)\n"
      "}\n";
  const SizeBindings sizes{{"M", 32}, {"N", 24}, {"K", 40}, {"H", 16}};
  const auto [plan, run] = run_two_kernels(source, sizes, PlannedKernelKind::fused_matmul);
  const Program program = compile_program(source, sizes);
  const std::string text = to_string(plan, program);
  EXPECT_NE(text.find("  mixed operands: A is f32 and W2 is f16: tensor cores, TF32 (f32_matmul=tf32: 16-bit "
                      "values widened exactly, f32 ones rounded to 11 significant bits)\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace polyfuse
