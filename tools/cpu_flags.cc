#include "tools/cpu_flags.h"

#include <fmt/format.h>

#include "frontend/diagnostics.h"
#include "schedule/cpu_target.h"

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
}

CpuScheduleOptions cpu_schedule_options(const CpuFlags& flags) {
  CpuScheduleOptions options;
  options.target = detect_cpu_target();
  options.threads = flags.threads;
  options.constant_inputs = flags.constants;
  return options;
}

void refuse_cpu_flags(const CpuFlags& flags, const std::string& why) {
  if (flags.threads_option != nullptr && flags.threads_option->count() > 0)
    throw UserError(fmt::format("--threads is an option of the CPU target (--target=cpu), but {}", why));
  if (flags.constants_option != nullptr && flags.constants_option->count() > 0)
    throw UserError(fmt::format("--constant is an option of the CPU target (--target=cpu), but {}", why));
}

}  // namespace polyfuse::tools
