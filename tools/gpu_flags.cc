#include "tools/gpu_flags.h"

#include <algorithm>

namespace polyfuse::tools {

void add_gpu_flags(CLI::App* app, GpuFlags& flags) {
  app->add_option("--arch", flags.arch, "Target architecture: sm_80, sm_86, sm_89 or sm_90")->capture_default_str();
  app->add_option("--block", flags.block, "Block tile MxNxK (default 128x128x32)")->type_name("MxNxK");
  app->add_option("--warp", flags.warp,
                  "Warp tile MxNxK (default: min(64, block) in M and N, block K / split-K in K)")
      ->type_name("MxNxK");
  app->add_option("--mma", flags.mma, "Warp-level macro-MMA: m16n8k16 (default), 16x16x8 or 32x32x8");
  app->add_option("--split-k", flags.split_k, "Intra-block split-K over 1, 2 or 4 warps")->capture_default_str();
  app->add_option("--stages", flags.stages, "Shared-memory buffers per operand: 1, or 2 (double buffering)")
      ->capture_default_str();
  app->add_option("--dump-after", flags.dump_after,
                  "Print the schedule tree after a pass (initial, block_tile, warp_tile, split_k, strip_mine_k, "
                  "contract_to_mma, prefetch, insert_copies, map_to_gpu) or after all of them (all); repeatable")
      ->type_name("PASS|all");
}

GpuOptions gpu_options(const GpuFlags& flags) {
  GpuOptions o = default_gpu_options(parse_arch(flags.arch));
  if (!flags.mma.empty()) o.mma = parse_mma_shape(flags.mma);
  if (!flags.block.empty()) o.block = parse_tile_shape(flags.block, "--block");
  o.split_k = flags.split_k;
  o.stages = flags.stages;
  if (!flags.warp.empty()) {
    o.warp = parse_tile_shape(flags.warp, "--warp");
  } else {
    o.warp = {std::min(64, o.block.m), std::min(64, o.block.n), o.split_k > 0 ? o.block.k / o.split_k : o.block.k};
    o.choose_warp = true;
  }
  validate_dump_request(flags.dump_after);
  return o;
}

}  // namespace polyfuse::tools
