#include "tools/gpu_flags.h"

#include <fmt/format.h>

#include "frontend/diagnostics.h"
#include "polyfuse/device.h"

namespace polyfuse::tools {

std::string GpuFlags::given(bool partition_flags) const {
  std::string names;
  for (const CLI::Option* option : registered)
    if (option->count() > 0 && (partition_flags || option->get_name() != "--f32-matmul")) names += (names.empty() ? "" : ", ") + option->get_name();
  if (autotune_option != nullptr && autotune_option->count() > 0) names += (names.empty() ? "" : ", ") + std::string("--autotune");
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
                      "k-steps in flight, one barrier per k-step (default 2; refused beyond the shared-memory budget)")};
  flags.group_option = app->add_option("--group", flags.group,
                                       "Block order: consecutive blocks walk groups of G tile rows column by column, "
                                       "for L2 reuse; 1 is row-major (default 8 when the grid has at least 8 tile rows "
                                       "or an unbound row count, else 1)")
                           ->type_name("G");
  flags.registered.push_back(flags.group_option);
  flags.registered.push_back(app->add_option("--consumer-schedule", flags.consumer_schedule,
                                             "sm_90a warp-specialised kernel: its two consumer warpgroups on each tile "
                                             "together (cooperative) or on alternate tiles (pingpong); default: cooperative")
                                 ->type_name("cooperative|pingpong"));
  flags.registered.push_back(app->add_option("--cluster", flags.cluster,
                                             "sm_90a warp-specialised kernel: thread-block clusters of 2x1 output tiles "
                                             "(sharing each B tile by TMA multicast) or 1x2 (sharing A); default 1x1 "
                                             "(none) until GPU timings show a cluster faster")
                                 ->type_name("1x1|2x1|1x2"));
  flags.registered.push_back(app->add_option("--f32-matmul", flags.f32_matmul,
                                             "Matmuls with f32 operands: tf32 (tensor cores, operands rounded to TF32; "
                                             "default), 3xtf32 (tensor cores, split precision, close to f32) or f32 "
                                             "(exact, CUDA cores)")
                                 ->type_name("tf32|3xtf32|f32"));
  flags.autotune_option = app->add_flag("--autotune", flags.autotune,
                                        "Choose the tile options by the autotuner: candidates compiled with NVRTC, "
                                        "pruned by ptxas's facts (spills, shared memory, occupancy), timed on the GPU "
                                        "(without one: ranked statically, and said so); the winner is cached per "
                                        "program, shapes and GPU. Refused beside the tile flags");
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
  if (flags.group_option != nullptr && flags.group_option->count() > 0) choices.group = flags.group;
  if (!flags.consumer_schedule.empty()) choices.consumer_schedule = parse_consumer_schedule(flags.consumer_schedule);
  if (!flags.f32_matmul.empty()) choices.f32_matmul = parse_f32_matmul(flags.f32_matmul);
  if (!flags.cluster.empty()) choices.cluster = parse_cluster_shape(flags.cluster);
  return gpu_options_from_choices(choices);
}

void refuse_gpu_flags(const GpuFlags& flags, const std::string& why, bool partition_flags) {
  std::string given = flags.given(partition_flags);
  if (!flags.dump_after.empty()) given += (given.empty() ? "" : ", ") + std::string("--dump-after");
  if (!given.empty()) throw UserError(fmt::format("{}: GPU options, but {}", given, why));
}

}  // namespace polyfuse::tools
