#include "tools/gpu_flags.h"

#include <fmt/format.h>

#include <algorithm>

#include "frontend/diagnostics.h"
#include "polyfuse/device.h"

namespace polyfuse::tools {

std::string GpuFlags::given() const {
  std::string names;
  for (const CLI::Option* option : registered)
    if (option->count() > 0) names += (names.empty() ? "" : ", ") + option->get_name();
  return names;
}

void add_gpu_flags(CLI::App* app, GpuFlags& flags) {
  flags.registered = {
      app->add_option("--arch", flags.arch,
                      "Target architecture: sm_80, sm_86, sm_89, sm_90 or sm_90a (Hopper only; default: the present "
                      "GPU's, else sm_90)"),
      app->add_option("--block", flags.block, "Block tile MxNxK (default 128x128x32)")->type_name("MxNxK"),
      app->add_option("--warp", flags.warp,
                      "Warp tile MxNxK (default: min(64, block) in M and N, block K / split-K in K, shrunk until the "
                      "register tiles fit)")
          ->type_name("MxNxK"),
      app->add_option("--mma", flags.mma, "Warp-level macro-MMA: m16n8k16 (default), 16x16x8 or 32x32x8"),
      app->add_option("--split-k", flags.split_k, "Intra-block split-K over 1, 2 or 4 warps (default 1)"),
      app->add_option("--stages", flags.stages,
                      "Shared-memory stages per operand: 1 (no prefetch), or 2 to 5: a cp.async ring with stages - 1 "
                      "k-steps in flight, one barrier per k-step (default 2; refused beyond the shared-memory budget)"),
      app->add_option("--group", flags.group,
                      "sm_90a TMA + wgmma kernels: the persistent tile scheduler walks output tiles in groups of this "
                      "many tile rows along M, 1 to 64 (default 8); refused for kernels on the mma.sync main loop")};
  app->add_option("--dump-after", flags.dump_after,
                  "Print the GPU schedule tree after a pass (initial, block_tile, warp_tile, split_k, strip_mine_k, "
                  "contract_to_mma, prefetch, insert_copies, map_to_gpu) or after all of them (all) to stderr; "
                  "repeatable")
      ->type_name("PASS|all");
}

GpuOptions gpu_options(const GpuFlags& flags) {
  validate_dump_request(flags.dump_after);
  GpuChoices choices;
  choices.arch = flags.arch.empty() ? default_arch() : parse_arch(flags.arch);
  if (!flags.block.empty()) choices.block = parse_tile_shape(flags.block, "block");
  if (!flags.warp.empty()) choices.warp = parse_tile_shape(flags.warp, "warp");
  if (!flags.mma.empty()) choices.mma = parse_mma_shape(flags.mma);
  choices.split_k = flags.split_k;
  choices.stages = flags.stages;
  const bool group_given = std::any_of(flags.registered.begin(), flags.registered.end(), [](const CLI::Option* o) {
    return o->get_name() == "--group" && o->count() > 0;
  });
  if (group_given && (flags.group < 1 || flags.group > 64))
    throw UserError(fmt::format("--group {}: the tile scheduler's group is 1 to 64 tile rows", flags.group));
  choices.sm90_tile_group = flags.group;
  return gpu_options_from_choices(choices);
}

void refuse_gpu_flags(const GpuFlags& flags, const std::string& why) {
  std::string given = flags.given();
  if (!flags.dump_after.empty()) given += (given.empty() ? "" : ", ") + std::string("--dump-after");
  if (!given.empty()) throw UserError(fmt::format("{}: GPU options, but {}", given, why));
}

}  // namespace polyfuse::tools
