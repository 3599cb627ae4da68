#include "polyfuse/launch_stats.h"

namespace polyfuse {

std::uint64_t LaunchStats::counter(std::string_view name) const {
  for (const auto& [key, value] : counters)
    if (key == name) return value;
  return 0;
}

const LaunchStats::Buffer* LaunchStats::buffer(std::string_view name) const {
  for (const Buffer& b : buffers)
    if (b.name == name) return &b;
  return nullptr;
}

std::string LaunchStats::summary() const {
  if (!emulated) return "";
  return "stats: global_bytes_loaded=" + std::to_string(counter("global_bytes_loaded")) +
         " global_bytes_stored=" + std::to_string(counter("global_bytes_stored")) +
         " shared_bank_conflicts=" + std::to_string(counter("shared_bank_conflicts"));
}

std::string LaunchStats::details() const {
  if (!emulated) return "";
  std::string text = "stats:";
  for (const auto& [name, value] : counters) text += " " + name + "=" + std::to_string(value);
  text += "\n";
  for (const Buffer& b : buffers)
    text += "buffer " + b.name + ": loaded=" + std::to_string(b.bytes_loaded) + " stored=" + std::to_string(b.bytes_stored) + "\n";
  return text;
}

}  // namespace polyfuse
