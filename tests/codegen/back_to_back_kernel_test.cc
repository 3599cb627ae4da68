// Back-to-back matmuls (issue 21 item 2): the golden CUDA of examples/mlp.tc's plan of one
// kernel (helpers not embedded), and the options that kernel refuses.
// UPDATE_GOLDEN=1 rewrites tests/golden/codegen/mlp_back_to_back.cu.
#include <gtest/gtest.h>

#include "codegen/cuda_plan.h"
#include "frontend/diagnostics.h"
#include "emit_plan_of_file.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

EmittedPlan emit_mlp(const SizeBindings& sizes, const GpuOptions& options) {
  return emit_plan_of_file("examples/mlp.tc", sizes, options);
}

// M odd, H and N not multiples of 16: every copy and store checked; two N tiles.
TEST(BackToBackKernel, MlpGolden) {
  GpuOptions options;
  options.arch = Arch::sm_80;
  const EmittedPlan plan = emit_mlp({{"M", 200}, {"N", 200}, {"K", 72}, {"H", 100}}, options);
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].grid[0].value, 4);  // ceil(200 / 64) blocks of 64 rows
  EXPECT_EQ(plan.kernels[0].block[0], 256);
  EXPECT_TRUE(matches_golden(plan.source, "codegen/mlp_back_to_back.cu"));
}

TEST(BackToBackKernel, RefusesSplitKAndOtherMmaShapes) {
  GpuOptions options;
  options.split_k = 2;
  EXPECT_THROW(emit_mlp({{"M", 64}, {"N", 64}, {"K", 32}, {"H", 64}}, options), UserError);
  options.split_k = 1;
  options.mma = MmaShape::m16n16k8;
  try {
    emit_mlp({{"M", 64}, {"N", 64}, {"K", 32}, {"H", 64}}, options);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("mma 16x16x8: the back-to-back kernel mlp_k0 is built from m16n8k16 MMAs"), std::string::npos)
        << e.what();
  }
}

// Its shared memory grows with the stages: five stages of the widest hidden tile fit sm_80's
// 163 KiB, not sm_86's 99 KiB (refused, naming the bytes).
TEST(BackToBackKernel, SharedMemoryBeyondTheArchIsRefused) {
  GpuOptions options;
  options.stages = 5;
  options.arch = Arch::sm_80;
  EXPECT_EQ(emit_mlp({{"M", 64}, {"N", 64}, {"K", 32}, {"H", 256}}, options).kernels.size(), 1u);
  options.arch = Arch::sm_86;
  EXPECT_THROW(emit_mlp({{"M", 64}, {"N", 64}, {"K", 32}, {"H", 256}}, options), UserError);
}

}  // namespace
}  // namespace polyfuse
