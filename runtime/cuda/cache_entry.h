// The on-disk form of one cached NVRTC result.
//
// Layout (little-endian), version 1:
//   bytes  0..7   magic "PFKCACHE"
//   bytes  8..11  u32 format version (1)
//   bytes 12..15  u32 section count (5)
//   bytes 16..55  u64 section sizes: key text, source, ptx, cubin, log
//   bytes 56..63  u64 hash64 of the payload (all sections, in order)
//   bytes 64..71  u64 hash64 of bytes 0..63
//   bytes 72..    the sections
// The key text (flags, arch, NVRTC version, header digest) and the source are stored in
// full and compared on load, so a hash collision can never return the wrong kernel.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "runtime/cuda/nvrtc_compiler.h"

namespace polyfuse::cuda {

inline constexpr std::size_t cache_entry_header_bytes = 72;

// The bytes of an entry for `output`, compiled from `source` under `key_text`.
std::string encode_cache_entry(const std::string& key_text, const std::string& source, const NvrtcOutput& output);

// The NVRTC output stored in `bytes` if it is a complete, intact entry for exactly
// (`key_text`, `source`); otherwise nullopt and `why` says what is wrong.
std::optional<NvrtcOutput> decode_cache_entry(std::string_view bytes, const std::string& key_text,
                                              const std::string& source, std::string* why = nullptr);

}  // namespace polyfuse::cuda
