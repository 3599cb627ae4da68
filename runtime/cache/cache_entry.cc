#include "runtime/cache/cache_entry.h"

#include <cstdint>
#include <cstring>

#include "runtime/cache/content_hash.h"

namespace polyfuse::cache {
namespace {

constexpr char magic[8] = {'P', 'F', 'C', 'A', 'C', 'H', 'E', '2'};
constexpr std::uint32_t format_version = 2;
constexpr std::uint32_t max_sections = 64;
constexpr std::uint64_t payload_seed = 0x7061796c6f616432ull;
constexpr std::uint64_t header_seed = 0x6865616465723032ull;

template <class T> void put(std::string& out, T value) {
  for (std::size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<char>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xff));
}

template <class T> T get(std::string_view bytes, std::size_t offset) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i)
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  return static_cast<T>(value);
}

std::size_t header_bytes(std::uint32_t sections) { return 16 + 8 * static_cast<std::size_t>(sections) + 16; }

}  // namespace

std::string encode_entry(std::string_view key_text, const std::vector<std::string_view>& sections) {
  std::vector<std::string_view> all{key_text};
  all.insert(all.end(), sections.begin(), sections.end());
  std::string payload;
  for (std::string_view s : all) payload.append(s);
  std::string entry(magic, sizeof magic);
  put<std::uint32_t>(entry, format_version);
  put<std::uint32_t>(entry, static_cast<std::uint32_t>(all.size()));
  for (std::string_view s : all) put<std::uint64_t>(entry, s.size());
  put<std::uint64_t>(entry, hash64(payload, payload_seed));
  put<std::uint64_t>(entry, hash64(entry, header_seed));
  return entry + payload;
}

std::optional<std::vector<std::string>> decode_entry(std::string_view bytes, std::string_view key_text,
                                                     std::string* why) {
  auto reject = [&](const char* reason) -> std::optional<std::vector<std::string>> {
    if (why) *why = reason;
    return std::nullopt;
  };
  if (bytes.size() < 16) return reject("shorter than the header (truncated)");
  if (std::memcmp(bytes.data(), magic, sizeof magic) != 0) return reject("bad magic");
  if (get<std::uint32_t>(bytes, 8) != format_version) return reject("other format version");
  const std::uint32_t n = get<std::uint32_t>(bytes, 12);
  if (n == 0 || n > max_sections) return reject("bad section count");
  const std::size_t header = header_bytes(n);
  if (bytes.size() < header) return reject("shorter than the header (truncated)");
  if (get<std::uint64_t>(bytes, header - 8) != hash64(bytes.substr(0, header - 8), header_seed))
    return reject("header checksum mismatch");
  std::vector<std::uint64_t> sizes(n);
  std::uint64_t total = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    sizes[i] = get<std::uint64_t>(bytes, 16 + 8 * i);
    if (sizes[i] > bytes.size()) return reject("section larger than the file (truncated)");
    total += sizes[i];
  }
  if (total != bytes.size() - header) return reject("size does not match the header (truncated)");
  const std::string_view payload = bytes.substr(header);
  if (get<std::uint64_t>(bytes, header - 16) != hash64(payload, payload_seed)) return reject("payload checksum mismatch");
  if (payload.substr(0, sizes[0]) != key_text) return reject("key text differs (hash collision or stale entry)");
  std::vector<std::string> sections;
  std::size_t offset = sizes[0];
  for (std::uint32_t i = 1; i < n; ++i) {
    sections.emplace_back(payload.substr(offset, sizes[i]));
    offset += sizes[i];
  }
  return sections;
}

}  // namespace polyfuse::cache
