// Attention in one kernel (schedule/attention.h): the golden CUDA of examples/causal_attention.tc's
// plan (helpers not embedded) at odd sizes — S, T, D not multiples of a tile: every copy and
// the store checked, the keys past the end masked — and the options the kernel refuses.
// UPDATE_GOLDEN=1 rewrites tests/golden/codegen/causal_attention.cu and causal_attention_sm90a.cu.
#include <gtest/gtest.h>

#include "codegen/cuda_plan.h"
#include "emit_plan_of_file.h"
#include "frontend/diagnostics.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

const SizeBindings odd{{"B", 3}, {"S", 100}, {"T", 150}, {"D", 40}};

TEST(AttentionKernel, CausalAttentionGolden) {
  GpuOptions options;
  options.arch = Arch::sm_80;
  const EmittedPlan plan = emit_plan_of_file("examples/causal_attention.tc", odd, options);
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].grid[0].value, 2);  // ceil(100 / 64) blocks of 64 queries
  EXPECT_EQ(plan.kernels[0].grid[1].value, 3);  // a batch slice each
  EXPECT_EQ(plan.kernels[0].block[0], 128);
  // Q's 64 x 64 tile (D = 40 padded), two stages of K's and V's, the store's scratch
  EXPECT_EQ(plan.kernels[0].dynamic_shared_bytes, 8192 + 2 * (8192 + 8192) + 4096);
  EXPECT_TRUE(matches_golden(plan.source, "codegen/causal_attention.cu"));
}

// On sm_90a the wgmma kernel (codegen/attention_wgmma_kernel.h): S = 100 fills two warpgroups,
// one block of 128 queries a slice; its golden file is compiled for sm_90a by
// codegen.nvcc_causal_attention_sm90a_sm90a (no spills, no ptxas diagnostic such as serialised
// wgmma) and its SASS checked for HGMMA and no HMMA.
TEST(AttentionKernel, CausalAttentionGoldenSm90a) {
  GpuOptions options;
  options.arch = Arch::sm_90a;
  const EmittedPlan plan = emit_plan_of_file("examples/causal_attention.tc", odd, options);
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].grid[0].value, 1);  // ceil(100 / 128) blocks of 128 queries
  EXPECT_EQ(plan.kernels[0].grid[1].value, 3);
  EXPECT_EQ(plan.kernels[0].block[0], 384);  // two consumer warpgroups and the producer
  // Q's two 64 x 64 tiles (D = 40 padded), a ring of three stages of K's and V's (a tile whose
  // scores run, one whose P·V still reads its V, one the producer loads); the f32 staging of the
  // output (2 x 64 x 64 x 4 bytes) lies over them; then the mbarriers: each stage's full and
  // empty, Q's, the consumers'
  EXPECT_EQ(plan.kernels[0].dynamic_shared_bytes, 16384 + 3 * (8192 + 8192) + (2 * 3 + 2) * 8);
  // Q, K and V reach the kernel as tensor maps of boxes of 64 columns by 64 rows
  for (const LaunchMetadata& m : plan.kernels)
    for (const KernelParameter& p : m.parameters)
      EXPECT_EQ(p.tma_box, (p.name == "Q" || p.name == "K" || p.name == "V") ? std::vector<int>({64, 64}) : std::vector<int>()) << p.name;
  EXPECT_TRUE(matches_golden(plan.source, "codegen/causal_attention_sm90a.cu"));
}

TEST(AttentionKernel, RefusesSplitKAndOtherMmaShapes) {
  GpuOptions options;
  options.split_k = 2;
  EXPECT_THROW(emit_plan_of_file("examples/attention.tc", odd, options), UserError);
  options.split_k = 1;
  options.mma = MmaShape::m16n16k8;
  try {
    emit_plan_of_file("examples/attention.tc", odd, options);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("mma 16x16x8: the attention kernel attention_k0 is built from m16n8k16 MMAs"),
              std::string::npos)
        << e.what();
  }
}

// Its shared memory grows with the stages: four stages at a head of 128 fit sm_80's 163 KiB, not
// sm_86's 99 KiB (refused, naming the bytes).
TEST(AttentionKernel, SharedMemoryBeyondTheArchIsRefused) {
  const SizeBindings wide{{"B", 1}, {"S", 64}, {"T", 512}, {"D", 128}};
  GpuOptions options;
  options.stages = 4;
  options.arch = Arch::sm_80;
  EXPECT_EQ(emit_plan_of_file("examples/attention.tc", wide, options).kernels.size(), 1u);
  options.arch = Arch::sm_86;
  try {
    emit_plan_of_file("examples/attention.tc", wide, options);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("the attention kernel attention_k0 needs 151552 bytes of shared memory per "
                                         "block"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace polyfuse
