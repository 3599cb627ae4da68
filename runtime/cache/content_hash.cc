#include "runtime/cache/content_hash.h"

#include <cstdio>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace polyfuse::cache {

std::uint64_t hash64(std::string_view data, std::uint64_t seed) {
  return XXH3_64bits_withSeed(data.data(), data.size(), seed);
}

std::string hash128_hex(std::string_view data) {
  const XXH128_hash_t h = XXH3_128bits(data.data(), data.size());
  return hex64(h.high64) + hex64(h.low64);
}

std::string hex64(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace polyfuse::cache
