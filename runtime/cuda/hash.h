// Fast 64-bit hashing for cache keys and entry checksums (not cryptographic).
//
// Each 8-byte word w updates the state h as h = rotl((h ^ w) * K, 31) + K2: for a fixed
// word this is a bijection of h, and for a fixed h a bijection of w, so changing any one
// word always changes the result; the length is mixed in, so truncation does too.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace polyfuse::cuda {

// Hash of `data` under `seed`.
std::uint64_t hash64(std::string_view data, std::uint64_t seed = 0);

// 32 hex digits from two independent hashes of `data`: a file name for a cache entry.
std::string hash128_hex(std::string_view data);

// `value` as 16 hex digits.
std::string hex64(std::uint64_t value);

}  // namespace polyfuse::cuda
