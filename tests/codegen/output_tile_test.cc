// The output rule's block tile (schedule/output_tile.h): a mma.sync kernel whose bound output is
// narrower than the default 128x128 block takes a block as wide as it (a power of two, at least
// 32) when the user chose no tile option, as --emit=config states; where it does not apply
// (a block or warp the user chose, unbound sizes, an output as wide as the block, the sm_90a
// TMA + wgmma loop) the default stays.
#include <gtest/gtest.h>

#include "codegen/cuda_emitter.h"
#include "gemm_programs.h"
#include "schedule/gpu_options.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

std::string config_of(const Program& program, const GpuOptions& options = {}) { return emit_config_text(program, options); }

TEST(OutputTile, NarrowOutputsTakeABlockAsWideAsThey) {
  const std::string gemm = example_source("gemm_bias_relu");
  // N = 23: 32 columns; M = 300 keeps 128 rows
  std::string config = config_of(compile_program(gemm, {{"M", 300}, {"N", 23}, {"K", 64}}));
  EXPECT_NE(config.find("tiles: block 128x32x32 warp 64x32x32"), std::string::npos) << config;
  EXPECT_NE(config.find("tile rule: block 128x32x32 (the output rule, schedule/output_tile.h): the output is 300 x 23, "
                        "narrower than the default block 128x128x32: a block as wide as it computes no padding"),
            std::string::npos)
      << config;
  // M = 9, N = 65: 32 rows of 128 columns
  config = config_of(compile_program(gemm, {{"M", 9}, {"N", 65}, {"K", 64}}));
  EXPECT_NE(config.find("tiles: block 32x128x32 warp 32x64x32"), std::string::npos) << config;
  // both: 64 x 32 blocks, one warp each
  const EmittedKernel small = emit_cuda(compile_program(gemm, {{"M", 40}, {"N", 17}, {"K", 64}}), CudaEmitRequest{});
  EXPECT_EQ(small.metadata.block[0], 32);  // one 64x32 warp
  EXPECT_NE(small.metadata.options.find("block 64x32x32"), std::string::npos) << small.metadata.options;
}

TEST(OutputTile, TheDefaultWhereTheRuleDoesNotApply) {
  const std::string gemm = example_source("gemm_bias_relu");
  const Program narrow = compile_program(gemm, {{"M", 300}, {"N", 23}, {"K", 64}});
  // a block the user chose (even the default one), a warp tile the user chose
  GpuOptions chosen;
  chosen.block_chosen = true;
  EXPECT_NE(config_of(narrow, chosen).find("tiles: block 128x128x32"), std::string::npos);
  GpuOptions warp;
  warp.choose_warp = false;
  EXPECT_NE(config_of(narrow, warp).find("tiles: block 128x128x32"), std::string::npos);
  // unbound sizes, and an output at least as wide as the block
  EXPECT_EQ(config_of(compile_program(gemm)).find("tile rule"), std::string::npos);
  EXPECT_EQ(config_of(compile_program(gemm, {{"M", 128}, {"N", 300}, {"K", 64}})).find("tile rule"), std::string::npos);
  // the sm_90a TMA + wgmma kernel has its own tiles
  GpuOptions hopper = default_gpu_options(Arch::sm_90a);
  const std::string config = config_of(compile_program(gemm, {{"M", 300}, {"N", 24}, {"K", 64}}), hopper);
  EXPECT_NE(config.find("main loop: TMA + wgmma"), std::string::npos) << config;
  EXPECT_EQ(config.find("output rule"), std::string::npos) << config;
}

}  // namespace
}  // namespace polyfuse
