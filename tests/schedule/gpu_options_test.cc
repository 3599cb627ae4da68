// GPU options: parsing, defaults and every validation rule with its message.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "frontend/diagnostics.h"
#include "schedule/gpu_options.h"

namespace polyfuse {
namespace {

std::string error_of(const GpuOptions& o, int element_bytes = 2) {
  try {
    validate_gpu_options(o, element_bytes);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(GpuOptions, DefaultsAreValidOnEveryArch) {
  for (Arch arch : {Arch::sm_80, Arch::sm_86, Arch::sm_89, Arch::sm_90, Arch::sm_90a})
    EXPECT_EQ(error_of(default_gpu_options(arch)), "") << to_string(arch);
}

TEST(GpuOptions, ParsesTileShapesAndRejectsMalformedOnes) {
  EXPECT_EQ(parse_tile_shape("128x64x32", "block"), (TileShape{128, 64, 32}));
  for (const char* bad : {"", "128", "128x64", "128x64x", "128x64x32x8", "0x64x32", "-8x64x32", "ax64x32", "99999999999x1x1"}) {
    try {
      parse_tile_shape(bad, "block");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UserError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("block: expected MxNxK with three positive integers (e.g. 128x128x32), got '") + bad + "'");
    }
  }
}

TEST(GpuOptions, ParsesArchAndMma) {
  EXPECT_EQ(parse_arch("sm_86"), Arch::sm_86);
  EXPECT_THROW(parse_arch("sm_70"), UserError);
  EXPECT_THROW(parse_arch("sm_89a"), UserError);
  for (const char* name : {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"}) EXPECT_EQ(to_string(parse_arch(name)), name);
  EXPECT_EQ(parse_mma_shape("32x32x8"), MmaShape::m32n32k8);
  EXPECT_THROW(parse_mma_shape("m16n8k8"), UserError);
}

TEST(GpuOptions, Sm90aIsHopperWithWgmma) {
  EXPECT_EQ(compute_capability(Arch::sm_90a), 90);
  EXPECT_TRUE(has_wgmma(Arch::sm_90a));
  EXPECT_FALSE(has_wgmma(Arch::sm_90));
  EXPECT_EQ(arch_limits(Arch::sm_90a).max_shared_bytes_per_block, 227 * 1024);
  GpuChoices hopper;
  hopper.arch = Arch::sm_90a;
  EXPECT_EQ(gpu_options_from_choices(hopper).arch, Arch::sm_90a);
}

TEST(GpuOptions, NamesTheBrokenDivisibilityRule) {
  GpuOptions o;
  o.warp = {48, 64, 32};
  EXPECT_EQ(error_of(o), "block 128x128x32 is not a multiple of warp 48x64x32 in M and N");
  o = GpuOptions{};
  o.split_k = 2;
  EXPECT_EQ(error_of(o), "warp K (32) must equal block K (32) divided by split_k (2)");
  o.split_k = 3;
  EXPECT_EQ(error_of(o), "split_k must be 1, 2 or 4, got 3");
  o = GpuOptions{};
  o.block = {128, 72, 32};
  o.warp = {64, 36, 32};
  EXPECT_EQ(error_of(o), "warp 64x36x32 is not a multiple of the m16n8k16 macro-MMA tile 16x8x16");
}

// The block order's group (issue 19): unset (the rule) or at least 1, any size above.
TEST(GpuOptions, GroupUnsetOrAtLeastOne) {
  GpuOptions o;
  EXPECT_EQ(error_of(o), "");
  for (int group : {1, 8, 1 << 20}) {
    o.group = group;
    EXPECT_EQ(error_of(o), "") << group;
  }
  for (int group : {0, -3}) {
    o.group = group;
    EXPECT_EQ(error_of(o), fmt::format("group must be at least 1 (tile rows per group of the block order; 1: row-major), "
                                       "got {}", group));
  }
  GpuChoices choices;
  EXPECT_FALSE(gpu_options_from_choices(choices).group.has_value());
  choices.group = 4;
  EXPECT_EQ(gpu_options_from_choices(choices).group, 4);
}

// The ring of shared stages (issue 19): 1..5, as deep as each arch's shared memory allows.
TEST(GpuOptions, StagesUpToFiveWithinTheSharedMemoryBudget) {
  GpuOptions o;
  for (int stages : {0, 6}) {
    o.stages = stages;
    EXPECT_EQ(error_of(o), fmt::format("stages must be 1 to 5 (1: no prefetch, 2..5: a ring of shared stages), got {}", stages));
  }
  for (Arch arch : {Arch::sm_80, Arch::sm_86, Arch::sm_89, Arch::sm_90})
    for (int stages = 1; stages <= 5; ++stages) {  // the default 128x128x32 tiles: 16 KiB a stage
      o = default_gpu_options(arch);
      o.stages = stages;
      EXPECT_EQ(error_of(o), "") << to_string(arch) << " " << stages;
      EXPECT_EQ(shared_bytes_per_block(o, 2), stages * 16384);
    }
  o = default_gpu_options(Arch::sm_80);
  o.block = {128, 256, 64};  // 48 KiB a stage: three fit in 163 KiB, four do not
  o.warp = {64, 64, 64};
  o.stages = 3;
  EXPECT_EQ(error_of(o), "");
  o.stages = 4;
  EXPECT_EQ(error_of(o), "block tile 128x256x64 with 4 stage(s) needs 196608 bytes of shared memory per block; sm_80 "
                         "allows 166912 (29696 bytes over): use fewer stages or a smaller block");
  o.arch = Arch::sm_90;  // 227 KiB: four fit, five do not
  EXPECT_EQ(error_of(o), "");
  o.stages = 5;
  EXPECT_EQ(error_of(o), "block tile 128x256x64 with 5 stage(s) needs 245760 bytes of shared memory per block; sm_90 "
                         "allows 232448 (13312 bytes over): use fewer stages or a smaller block");
  o.arch = Arch::sm_86;  // 99 KiB: two fit
  o.stages = 3;
  EXPECT_EQ(error_of(o), "block tile 128x256x64 with 3 stage(s) needs 147456 bytes of shared memory per block; sm_86 "
                         "allows 101376 (46080 bytes over): use fewer stages or a smaller block");
}

TEST(GpuOptions, NamesTheArchLimitAndByHowMuch) {
  GpuOptions o = default_gpu_options(Arch::sm_86);
  o.block = {256, 256, 64};
  o.warp = {64, 64, 64};
  EXPECT_EQ(error_of(o),
            "block tile 256x256x64 with 2 stage(s) needs 131072 bytes of shared memory per block; sm_86 allows 101376 (29696 "
            "bytes over): use fewer stages or a smaller block");
  o = GpuOptions{};
  o.block = {256, 256, 32};
  o.warp = {32, 32, 32};
  EXPECT_EQ(error_of(o), "block tile 256x256x32 with warp tile 32x32x32 and split-K 1 needs 2048 threads per block; sm_90 allows 1024 (1024 over)");
  o = GpuOptions{};
  o.block = {128, 128, 32};
  o.warp = {128, 128, 32};
  EXPECT_EQ(error_of(o), "warp tile 128x128x32 needs at least 544 registers per thread (512 for f32 accumulators); sm_90 allows 255 (289 over)");
}

}  // namespace
}  // namespace polyfuse
