#include "schedule/cpu_target.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace polyfuse {
namespace {

// The largest power of two <= value (1 for value < 1).
std::int64_t floor_power_of_two(std::int64_t value) {
  std::int64_t power = 1;
  while (power * 2 <= value) power *= 2;
  return power;
}

// Size in bytes of cache `index` of cpu0 from sysfs ("32K", "1024K", "32M"), or 0.
std::int64_t sysfs_cache_bytes(int index) {
  std::ifstream file("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
  std::string text;
  if (!(file >> text) || text.empty()) return 0;
  std::int64_t value = 0;
  std::size_t pos = 0;
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') value = value * 10 + (text[pos++] - '0');
  if (pos < text.size() && (text[pos] == 'K' || text[pos] == 'k')) value <<= 10;
  if (pos < text.size() && (text[pos] == 'M' || text[pos] == 'm')) value <<= 20;
  return value;
}

}  // namespace

CpuTarget default_cpu_target() { return CpuTarget{}; }

CpuTarget detect_cpu_target() {
  CpuTarget target;
  long l1 = 0, l2 = 0, l3 = 0;
#ifdef _SC_LEVEL1_DCACHE_SIZE
  l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE);
  l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
  // sysfs index0 is L1d, index2 L2, index3 L3 on Linux.
  if (l1 <= 0) l1 = static_cast<long>(sysfs_cache_bytes(0));
  if (l2 <= 0) l2 = static_cast<long>(sysfs_cache_bytes(2));
  if (l3 <= 0) l3 = static_cast<long>(sysfs_cache_bytes(3));
  if (l1 > 0) target.l1d_bytes = l1;
  if (l2 > 0) target.l2_bytes = l2;
  if (l3 > 0) target.l3_bytes = l3;
  return target;
}

CpuBlocking goto_blocking(const CpuTarget& target) {
  constexpr std::int64_t element_bytes = 4;
  CpuBlocking blocking;
  blocking.kc = std::clamp<std::int64_t>(
      floor_power_of_two(target.l1d_bytes / 2 / (target.nr * element_bytes)), 64, 512);
  blocking.mc = std::clamp<std::int64_t>(
      floor_power_of_two(target.l2_bytes / 2 / (blocking.kc * element_bytes)), 32, 256);
  blocking.nc = std::clamp<std::int64_t>(
      floor_power_of_two(target.l2_bytes / (blocking.mc * element_bytes)), 32, 1024);
  return blocking;
}

std::string to_string(const CpuBlocking& blocking) {
  return "mc=" + std::to_string(blocking.mc) + " nc=" + std::to_string(blocking.nc) +
         " kc=" + std::to_string(blocking.kc);
}

}  // namespace polyfuse
