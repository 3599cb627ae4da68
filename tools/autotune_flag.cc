#include "tools/autotune_flag.h"

#include <fmt/format.h>

#include "polyfuse/device.h"
#include "polyfuse/errors.h"
#include "runtime/api/autotune.h"

namespace polyfuse::tools {
namespace {

// The tile flags given beside --autotune ("--block, --stages"), "" when none.
std::string tile_flags_given(const GpuFlags& flags) {
  std::string names;
  for (const CLI::Option* option : flags.registered) {
    const std::string name = option->get_name();
    if (option->count() > 0 && name != "--arch" && name != "--f32-matmul")
      names += (names.empty() ? "" : ", ") + name;
  }
  return names;
}

}  // namespace

GpuOptions autotuned_gpu_options(const GpuFlags& flags, const ProgramInput& input, const Program& program,
                                 std::ostream& report, std::string* summary) {
  if (const std::string given = tile_flags_given(flags); !given.empty())
    throw UserError(fmt::format("--autotune chooses the tile options itself: drop {} or drop --autotune", given));
  const GpuOptions base = gpu_options(flags);
  api::AutotuneRequest request;
  request.text = input.source().text;
  request.name = input.source().name;
  request.sizes = api::Sizes(program.size_bindings.begin(), program.size_bindings.end());
  request.def = program.name;
  request.options.arch = base.arch;
  request.options.f32_matmul = base.f32_matmul;
  AutotuneReport result;
  try {
    const std::unique_ptr<api::CandidateTimer> timer = api::gpu_timer();
    result = api::autotune(request, *timer, cache::ArtifactCache::global());
  } catch (const SourceError& e) {
    std::string message = e.what();
    if (message.rfind("polyfuse: error: ", 0) == 0) message.erase(0, 17);
    throw UserError("--autotune: " + message);
  }
  report << result.to_string() << std::flush;
  if (summary) *summary = result.summary();
  const CompileOptions& o = result.chosen;
  return gpu_options_from_choices(GpuChoices{base.arch, o.block, o.warp, o.mma, o.split_k, o.stages, o.group,
                                             o.consumer_schedule, base.f32_matmul, o.cluster.value_or(ClusterShape{})});
}

}  // namespace polyfuse::tools
