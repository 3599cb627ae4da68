// The on-disk form of one cache entry, for every artefact kind.
//
// Layout (little-endian), version 2:
//   bytes  0..7    magic "PFCACHE2"
//   bytes  8..11   u32 format version (2)
//   bytes 12..15   u32 section count n (the key text first, then the artefact's sections)
//   bytes 16..     n u64 section sizes
//   then           u64 XXH3-64 of the payload (all sections, in order)
//                  u64 XXH3-64 of the header bytes before it
//   then           the sections
// The key text (what the artefact was built from and how: the source, the compiler and
// its flags, header digests) is stored in full and compared on load, so neither a hash
// collision nor a stale entry can return the wrong artefact.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace polyfuse::cache {

// The bytes of an entry holding `sections` for `key_text`.
std::string encode_entry(std::string_view key_text, const std::vector<std::string_view>& sections);

// The sections stored in `bytes` if it is a complete, intact entry for exactly
// `key_text`; otherwise nullopt, and `why` says what is wrong.
std::optional<std::vector<std::string>> decode_entry(std::string_view bytes, std::string_view key_text,
                                                     std::string* why = nullptr);

}  // namespace polyfuse::cache
