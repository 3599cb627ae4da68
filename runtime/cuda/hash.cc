#include "runtime/cuda/hash.h"

#include <cstdio>
#include <cstring>

namespace polyfuse::cuda {
namespace {

constexpr std::uint64_t k_multiplier = 0x9fb21c651e98df25ull;
constexpr std::uint64_t k_increment = 0x9e3779b97f4a7c15ull;

std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
std::uint64_t step(std::uint64_t h, std::uint64_t w) { return rotl((h ^ w) * k_multiplier, 31) + k_increment; }

// Final avalanche (MurmurHash3's fmix64).
std::uint64_t finish(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

}  // namespace

std::uint64_t hash64(std::string_view data, std::uint64_t seed) {
  std::uint64_t h = finish(seed + k_increment);
  const char* p = data.data();
  std::size_t n = data.size();
  // Four independent lanes keep the multiplier pipeline busy.
  std::uint64_t lane[4] = {h, h ^ 1, h ^ 2, h ^ 3};
  while (n >= 32) {
    for (int i = 0; i < 4; ++i) {
      std::uint64_t w;
      std::memcpy(&w, p + 8 * i, 8);
      lane[i] = step(lane[i], w);
    }
    p += 32;
    n -= 32;
  }
  h = step(step(step(step(h, lane[0]), lane[1]), lane[2]), lane[3]);
  while (n >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = step(h, w);
    p += 8;
    n -= 8;
  }
  std::uint64_t tail = 0;
  std::memcpy(&tail, p, n);
  h = step(h, tail);
  h = step(h, static_cast<std::uint64_t>(data.size()));
  return finish(h);
}

std::string hex64(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::string hash128_hex(std::string_view data) {
  return hex64(hash64(data, 0x706f6c7966757365ull)) + hex64(hash64(data, 0x6b65726e656c7321ull));
}

}  // namespace polyfuse::cuda
