// Cache sizes and Goto-style blocking.
#include "blocking.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace polyfuse::cpu::detail {
namespace {

// Parses "48K", "1024K", "32M" from /sys/devices/system/cpu/cpu0/cache/indexN/size.
int64_t sys_cache_size(int level, bool data) {
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream level_file(dir + "/level"), type_file(dir + "/type"), size_file(dir + "/size");
    int file_level = 0;
    std::string type, size;
    if (!(level_file >> file_level) || !(type_file >> type) || !(size_file >> size)) continue;
    if (file_level != level) continue;
    if (data ? type == "Instruction" : type != "Unified") continue;
    int64_t value = std::stoll(size);
    if (size.back() == 'K') value <<= 10;
    if (size.back() == 'M') value <<= 20;
    return value;
  }
  return 0;
}

int64_t detect(int sysconf_name, int level, bool data) {
  long value = 0;
#if defined(_SC_LEVEL1_DCACHE_SIZE)
  value = sysconf(sysconf_name);
#endif
  if (value > 0) return value;
  return sys_cache_size(level, data);
}

}  // namespace

const CacheSizes& cache_sizes() {
  static const CacheSizes sizes = [] {
    CacheSizes s;
#if defined(_SC_LEVEL1_DCACHE_SIZE)
    const int64_t l1 = detect(_SC_LEVEL1_DCACHE_SIZE, 1, true);
    const int64_t l2 = detect(_SC_LEVEL2_CACHE_SIZE, 2, false);
    const int64_t l3 = detect(_SC_LEVEL3_CACHE_SIZE, 3, false);
#else
    const int64_t l1 = sys_cache_size(1, true), l2 = sys_cache_size(2, false),
                  l3 = sys_cache_size(3, false);
#endif
    if (l1 >= 8 * 1024) s.l1d = l1;
    if (l2 >= 64 * 1024) s.l2 = l2;
    const long cores = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
    if (l3 >= 1 << 20) s.l3 = std::max<int64_t>(l3 / cores, s.l2);
    return s;
  }();
  return sizes;
}

Blocking blocking_for(const CacheSizes& caches, int64_t mr, int64_t nr, int64_t k_pack,
                      int64_t element_bytes) {
  Blocking b;
  const int64_t kc = caches.l1d / 2 / (nr * element_bytes);
  b.kc = std::clamp<int64_t>(kc / 16 * 16, 64, 512);
  b.kc = (b.kc + k_pack - 1) / k_pack * k_pack;
  const int64_t mc = caches.l2 / 2 / (b.kc * element_bytes);
  b.mc = std::clamp<int64_t>(mc / mr * mr, mr, 64 * mr);
  const int64_t nc = caches.l3 / 2 / (b.kc * element_bytes);
  b.nc = std::clamp<int64_t>(nc / nr * nr, nr, 4096 / nr * nr);
  return b;
}

}  // namespace polyfuse::cpu::detail
