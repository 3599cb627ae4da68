// Content hashes for cache keys and entry checksums: xxHash's XXH3 (64 and 128 bits),
// compiled in (header-only), not cryptographic. A cache never trusts a hash alone: entries
// store their key text and compare it on load.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace polyfuse::cache {

// XXH3-64 of `data` under `seed`.
std::uint64_t hash64(std::string_view data, std::uint64_t seed = 0);

// XXH3-128 of `data` as 32 hex digits: the file name of a cache entry.
std::string hash128_hex(std::string_view data);

// `value` as 16 hex digits.
std::string hex64(std::uint64_t value);

}  // namespace polyfuse::cache
