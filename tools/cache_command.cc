// `polyfuse cache info|clear`: where the artefact cache is, what it holds per kind, and
// emptying it (runtime/cache/artifact_cache.h).
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "runtime/cache/artifact_cache.h"
#include "tools/command.h"

namespace polyfuse::tools {

Command add_cache_command(CLI::App& parent) {
  auto action = std::make_shared<std::string>();
  CLI::App* app = parent.add_subcommand(
      "cache", "Show (info) or empty (clear) the cache of compiled kernels: NVRTC results, emulator and CPU shared "
               "objects. Location: POLYFUSE_CACHE_DIR, else XDG_CACHE_HOME/polyfuse, else ~/.cache/polyfuse; size bound "
               "POLYFUSE_CACHE_MAX_MB (least recently used entries go first).");
  app->add_option("action", *action, "info or clear")->required()->check(CLI::IsMember({"info", "clear"}));
  return Command{app, [action] {
                   cache::ArtifactCache& cache = cache::ArtifactCache::global();
                   if (*action == "clear") {
                     const std::uint64_t freed = cache.clear();
                     std::cout << fmt::format("cache: removed {:.1f} MiB from {}\n", freed / 1048576.0,
                                              cache.config().root.string());
                   } else {
                     std::cout << cache.info().to_string();
                   }
                   return exit_success;
                 }};
}

}  // namespace polyfuse::tools
