#include "tools/cli_spelling.h"

#include <map>

namespace polyfuse::tools {

std::string cli_spelling(std::string_view name) {
  static const std::map<std::string_view, std::string_view> flags = {
      {"arch", "--arch"},         {"block", "--block"},       {"warp", "--warp"},
      {"mma", "--mma"},           {"split_k", "--split-k"},   {"stages", "--stages"}, {"group", "--group"},
      {"consumer_schedule", "--consumer-schedule"},
      {"cluster", "--cluster"},
      {"f32_matmul", "--f32-matmul"},
      {"dump_after", "--dump-after"}, {"target", "--target"}, {"sizes", "-D"},
      {"def", "--def"},         {"emit", "--emit"}};
  const auto flag = flags.find(name);
  return std::string(flag != flags.end() ? flag->second : name);
}

}  // namespace polyfuse::tools
