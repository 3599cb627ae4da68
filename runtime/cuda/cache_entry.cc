#include "runtime/cuda/cache_entry.h"

#include <array>
#include <cstdint>
#include <cstring>

#include "runtime/cuda/hash.h"

namespace polyfuse::cuda {
namespace {

constexpr char magic[8] = {'P', 'F', 'K', 'C', 'A', 'C', 'H', 'E'};
constexpr std::uint32_t format_version = 1;
constexpr std::uint32_t section_count = 5;
constexpr std::uint64_t payload_seed = 0x7061796c6f616431ull;
constexpr std::uint64_t header_seed = 0x6865616465723031ull;

template <class T> void put(std::string& out, T value) {
  char bytes[sizeof(T)];
  for (std::size_t i = 0; i < sizeof(T); ++i) bytes[i] = static_cast<char>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xff);
  out.append(bytes, sizeof(T));
}

template <class T> T get(std::string_view bytes, std::size_t offset) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i)
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  return static_cast<T>(value);
}

bool fail(std::string* why, const char* reason) {
  if (why) *why = reason;
  return false;
}

}  // namespace

std::string encode_cache_entry(const std::string& key_text, const std::string& source, const NvrtcOutput& output) {
  const std::string_view cubin(output.cubin.data(), output.cubin.size());
  const std::array<std::string_view, section_count> sections = {key_text, source, output.ptx, cubin, output.log};
  std::string payload;
  std::size_t total = 0;
  for (std::string_view s : sections) total += s.size();
  payload.reserve(total);
  for (std::string_view s : sections) payload.append(s);

  std::string entry;
  entry.reserve(cache_entry_header_bytes + payload.size());
  entry.append(magic, sizeof magic);
  put<std::uint32_t>(entry, format_version);
  put<std::uint32_t>(entry, section_count);
  for (std::string_view s : sections) put<std::uint64_t>(entry, s.size());
  put<std::uint64_t>(entry, hash64(payload, payload_seed));
  put<std::uint64_t>(entry, hash64(entry, header_seed));
  entry += payload;
  return entry;
}

std::optional<NvrtcOutput> decode_cache_entry(std::string_view bytes, const std::string& key_text,
                                              const std::string& source, std::string* why) {
  auto reject = [&](const char* reason) -> std::optional<NvrtcOutput> {
    fail(why, reason);
    return std::nullopt;
  };
  if (bytes.size() < cache_entry_header_bytes) return reject("shorter than the header (truncated)");
  if (std::memcmp(bytes.data(), magic, sizeof magic) != 0) return reject("bad magic");
  if (get<std::uint64_t>(bytes, 64) != hash64(bytes.substr(0, 64), header_seed)) return reject("header checksum mismatch");
  if (get<std::uint32_t>(bytes, 8) != format_version) return reject("other format version");
  if (get<std::uint32_t>(bytes, 12) != section_count) return reject("bad section count");
  std::uint64_t sizes[section_count];
  std::uint64_t total = 0;
  for (std::uint32_t i = 0; i < section_count; ++i) {
    sizes[i] = get<std::uint64_t>(bytes, 16 + 8 * i);
    if (sizes[i] > bytes.size()) return reject("section larger than the file (truncated)");
    total += sizes[i];
  }
  if (total != bytes.size() - cache_entry_header_bytes) return reject("size does not match the header (truncated)");
  const std::string_view payload = bytes.substr(cache_entry_header_bytes);
  if (get<std::uint64_t>(bytes, 56) != hash64(payload, payload_seed)) return reject("payload checksum mismatch");

  std::string_view section[section_count];
  std::size_t offset = 0;
  for (std::uint32_t i = 0; i < section_count; ++i) {
    section[i] = payload.substr(offset, sizes[i]);
    offset += sizes[i];
  }
  if (section[0] != key_text) return reject("key text differs (hash collision)");
  if (section[1] != source) return reject("source differs (hash collision)");
  NvrtcOutput out;
  out.ptx = std::string(section[2]);
  out.cubin.assign(section[3].begin(), section[3].end());
  out.log = std::string(section[4]);
  if (out.cubin.empty()) return reject("empty cubin");
  return out;
}

}  // namespace polyfuse::cuda
