// Convolutions as implicit GEMMs (issue 24 item 2): the golden CUDA of the f16 conv + bias +
// ReLU (tests/programs/conv2d_bias_relu_f16.tc) at a small odd size — the gather function, the
// k-loop over taps x channels, the epilogue on the fragments — and the options the kernel refuses;
// the grouped one (tests/programs/conv2d_grouped_bias_relu_f16.tc): one GEMM per group on
// blockIdx.z; the sm_90a kernel of the first. UPDATE_GOLDEN=1 rewrites tests/golden/codegen/conv2d*_implicit_gemm.cu.
#include <gtest/gtest.h>

#include "codegen/cuda_plan.h"
#include "frontend/diagnostics.h"
#include "emit_plan_of_file.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

const SizeBindings sizes{{"N", 2}, {"H", 9}, {"W", 7}, {"C", 16}, {"K", 24}, {"R", 3}, {"S", 3}};

EmittedPlan emit_conv(const GpuOptions& options) {
  return emit_plan_of_file("tests/programs/conv2d_bias_relu_f16.tc", sizes, options);
}

// M = 2 * 9 * 7 = 126 pixels (two row tiles, the second partial), 24 channels, K = 144 (a tail).
TEST(ImplicitGemmKernel, ConvBiasReluGolden) {
  GpuOptions options;
  options.arch = Arch::sm_80;
  const EmittedPlan plan = emit_conv(options);
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].grid[0].value, 2);
  EXPECT_EQ(plan.kernels[0].grid[1].value, 1);
  EXPECT_EQ(plan.kernels[0].block[0], 128);
  EXPECT_TRUE(matches_golden(plan.source, "codegen/conv2d_bias_relu_implicit_gemm.cu"));
}

// The same convolution for sm_90a: the TMA + wgmma kernel whose producer threads gather A
// (codegen/hopper_implicit_gemm.h); a persistent grid of the one output tile of 128 x 128
// (cooperative), 384 threads, F a tensor map (boxes of 64 x 128 rows).
TEST(ImplicitGemmKernel, ConvBiasReluSm90aGolden) {
  const EmittedPlan plan = emit_conv(default_gpu_options(Arch::sm_90a));
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_TRUE(plan.kernels[0].persistent);
  EXPECT_EQ(plan.kernels[0].grid[0].value, 1);
  EXPECT_EQ(plan.kernels[0].block[0], 384);
  for (const KernelParameter& p : plan.kernels[0].parameters) {
    const std::vector<int> box = p.name == "F" ? std::vector<int>{64, 128} : std::vector<int>{};
    EXPECT_EQ(p.tma_box, box) << p.name;
    if (p.name == "I") {
      EXPECT_EQ(p.shape, (std::vector<std::string>{"2", "9", "7", "16"}));
    }
  }
  EXPECT_TRUE(matches_golden(plan.source, "codegen/conv2d_bias_relu_sm90a_implicit_gemm.cu"));
}

// 3 groups of C = 8 -> K = 24 channels: each group's 24 columns a GEMM of its own (grid z), the
// rows' offsets carrying the group's 8 input channels, the bias(g, k) + ReLU epilogue fused.
TEST(ImplicitGemmKernel, GroupedConvBiasReluGolden) {
  GpuOptions options;
  options.arch = Arch::sm_80;
  const EmittedPlan plan = emit_plan_of_file("tests/programs/conv2d_grouped_bias_relu_f16.tc",
                                             {{"N", 2}, {"H", 9}, {"W", 7}, {"G", 3}, {"C", 8}, {"K", 24}, {"R", 3}, {"S", 3}},
                                             options);
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].grid[1].value, 1);
  EXPECT_EQ(plan.kernels[0].grid[2].value, 3);
  EXPECT_TRUE(matches_golden(plan.source, "codegen/conv2d_grouped_bias_relu_implicit_gemm.cu"));
}

TEST(ImplicitGemmKernel, RefusesSplitKOtherMmaShapesAndOtherTiles) {
  GpuOptions split;
  split.split_k = 2;
  EXPECT_THROW(emit_conv(split), UserError);
  GpuOptions mma;
  mma.mma = MmaShape::m16n16k8;
  EXPECT_THROW(emit_conv(mma), UserError);
  GpuOptions block;
  block.block_chosen = true;  // the default 128x128x32, chosen
  try {
    emit_conv(block);
    ADD_FAILURE() << "a chosen block tile was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("block 128x128x32: the implicit GEMM kernel conv2d_bias_relu_k0 has tiles "
                                         "of its own"),
              std::string::npos)
        << e.what();
  }
  // its own tiles, chosen, are taken
  block.block = {64, 64, 32};
  block.warp = {32, 32, 32};
  block.choose_warp = false;
  EXPECT_EQ(emit_conv(block).kernels.at(0).block[0], 128);
}

}  // namespace
}  // namespace polyfuse
