#include "tools/cpu_flags.h"

#include <fmt/format.h>

#include "frontend/diagnostics.h"
#include "schedule/cpu_target.h"
#include "schedule/gpu_options.h"

namespace polyfuse::tools {

void add_cpu_flags(CLI::App* app, CpuFlags& flags) {
  flags.threads_option =
      app->add_option("--threads", flags.threads,
                      "CPU target: OpenMP threads of the generated loops (default: every core, or "
                      "OMP_NUM_THREADS). Threads split output blocks, never a reduction: the results are the "
                      "same for every count")
          ->check(CLI::Range(1, 4096))
          ->type_name("N");
  flags.constants_option =
      app->add_option("--constant", flags.constants,
                      "CPU target: an input whose values do not change between calls with the same pointer (a "
                      "network's weights); repeatable. The packed copy the generated code makes of it (a GEMM's B, "
                      "a convolution's filter panels) is kept between calls and made again only for another "
                      "pointer, or after polyfuse_<def>_forget_constants(). --emit=schedule says which inputs it "
                      "keeps")
          ->type_name("NAME")
          ->take_all();
  flags.cpu_block_option =
      app->add_option("--cpu-block", flags.cpu_block,
                      "CPU target: the blocks of every blocked stage, MCxNCxKC: mc x nc output blocks (what the "
                      "threads split) and kc-deep slices of each block's reduction (one BRGEMM batch); default: from "
                      "the caches (kc x nr of B in half of L1, mc x kc of A in half of L2). A parallel stage still "
                      "evens its row blocks out over the threads; --emit=schedule prints the blocks of each stage")
          ->type_name("MCxNCxKC");
  flags.min_parallel_flops_option =
      app->add_option("--min-parallel-flops", flags.min_parallel_flops,
                      "CPU target: a stage with fewer floating-point operations runs on the calling thread "
                      "(default 8388608, about 55 microseconds of one core); 0: every stage of more than one block "
                      "runs on the threads")
          ->check(CLI::Validator(
              [](const std::string& text) {
                return text.empty() || text.front() == '-' ? "expected 0 or more, got " + text
                                                           : std::string();
              },
              "", "non-negative"))
          ->type_name("N");
}

CpuScheduleOptions cpu_schedule_options(const CpuFlags& flags) {
  CpuScheduleOptions options;
  options.target = detect_cpu_target();
  options.threads = flags.threads;
  options.constant_inputs = flags.constants;
  if (!flags.cpu_block.empty()) {
    const TileShape block = parse_tile_shape(flags.cpu_block, "cpu-block");
    options.blocking = CpuBlocking{.mc = block.m, .nc = block.n, .kc = block.k};
  }
  if (flags.min_parallel_flops >= 0) options.min_parallel_flops = flags.min_parallel_flops;
  return options;
}

void refuse_cpu_flags(const CpuFlags& flags, const std::string& why) {
  if (flags.threads_option != nullptr && flags.threads_option->count() > 0)
    throw UserError(fmt::format("--threads is an option of the CPU target (--target=cpu), but {}", why));
  if (flags.constants_option != nullptr && flags.constants_option->count() > 0)
    throw UserError(fmt::format("--constant is an option of the CPU target (--target=cpu), but {}", why));
  if (flags.cpu_block_option != nullptr && flags.cpu_block_option->count() > 0)
    throw UserError(fmt::format("--cpu-block is an option of the CPU target (--target=cpu), but {}", why));
  if (flags.min_parallel_flops_option != nullptr && flags.min_parallel_flops_option->count() > 0)
    throw UserError(fmt::format("--min-parallel-flops is an option of the CPU target (--target=cpu), but {}", why));
}

}  // namespace polyfuse::tools
