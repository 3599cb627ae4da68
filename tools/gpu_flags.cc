#include "tools/gpu_flags.h"


namespace polyfuse::tools {

void add_gpu_flags(CLI::App* app, GpuFlags& flags) {
  app->add_option("--arch", flags.text.arch, "Target architecture: sm_80, sm_86, sm_89, sm_90 or sm_90a (Hopper only)")->capture_default_str();
  app->add_option("--block", flags.text.block, "Block tile MxNxK (default 128x128x32)")->type_name("MxNxK");
  app->add_option("--warp", flags.text.warp,
                  "Warp tile MxNxK (default: min(64, block) in M and N, block K / split-K in K)")
      ->type_name("MxNxK");
  app->add_option("--mma", flags.text.mma, "Warp-level macro-MMA: m16n8k16 (default), 16x16x8 or 32x32x8");
  app->add_option("--split-k", flags.text.split_k, "Intra-block split-K over 1, 2 or 4 warps (default 1)");
  app->add_option("--stages", flags.text.stages, "Shared-memory buffers per operand: 1, or 2 (double buffering, default)");
  app->add_option("--dump-after", flags.dump_after,
                  "Print the schedule tree after a pass (initial, block_tile, warp_tile, split_k, strip_mine_k, "
                  "contract_to_mma, prefetch, insert_copies, map_to_gpu) or after all of them (all); repeatable")
      ->type_name("PASS|all");
}

GpuOptions gpu_options(const GpuFlags& flags) {
  validate_dump_request(flags.dump_after);
  return gpu_options_from_text(flags.text);
}

}  // namespace polyfuse::tools
