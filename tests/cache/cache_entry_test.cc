// The entry format of the artefact cache: round trips, and every kind of damage a disk or
// an interrupted writer can do is detected (never a wrong or partial artefact).
#include <gtest/gtest.h>

#include "runtime/cache/cache_entry.h"
#include "runtime/cache/content_hash.h"

namespace polyfuse::cache {
namespace {

TEST(ContentHash, KnownValuesAndSeedsDiffer) {
  EXPECT_EQ(hash64(""), 0x2d06800538d394c2ull);  // XXH3-64 of the empty input, seed 0
  EXPECT_NE(hash64("a"), hash64("a", 1));
  EXPECT_NE(hash64("ab"), hash64("ba"));
  EXPECT_EQ(hash128_hex("polyfuse").size(), 32u);
  EXPECT_NE(hash128_hex("polyfuse"), hash128_hex("polyfuse "));
  EXPECT_EQ(hex64(0xabcull), "0000000000000abc");
}

TEST(CacheEntry, RoundTripsSections) {
  const std::string entry = encode_entry("key", {"source", std::string_view("\0bin\0", 5), ""});
  std::string why;
  auto sections = decode_entry(entry, "key", &why);
  ASSERT_TRUE(sections) << why;
  ASSERT_EQ(sections->size(), 3u);
  EXPECT_EQ((*sections)[0], "source");
  EXPECT_EQ((*sections)[1], std::string("\0bin\0", 5));
  EXPECT_EQ((*sections)[2], "");
}

std::string why_rejected(const std::string& bytes, const std::string& key = "key") {
  std::string why;
  EXPECT_FALSE(decode_entry(bytes, key, &why));
  return why;
}

TEST(CacheEntry, DetectsEveryDamage) {
  const std::string entry = encode_entry("key", {"first section", "second"});
  EXPECT_EQ(why_rejected(entry, "other key"), "key text differs (hash collision or stale entry)");
  EXPECT_EQ(why_rejected(entry.substr(0, 10)), "shorter than the header (truncated)");
  EXPECT_EQ(why_rejected(entry.substr(0, entry.size() - 1)), "size does not match the header (truncated)");
  EXPECT_EQ(why_rejected(entry + "x"), "size does not match the header (truncated)");
  std::string payload_flip = entry;
  payload_flip.back() ^= 1;
  EXPECT_EQ(why_rejected(payload_flip), "payload checksum mismatch");
  std::string size_flip = entry;
  size_flip[16] ^= 1;  // the key text's size
  EXPECT_EQ(why_rejected(size_flip), "header checksum mismatch");
  std::string magic = entry;
  magic[0] = 'X';
  EXPECT_EQ(why_rejected(magic), "bad magic");
  std::string version = entry;
  version[8] = 1;
  EXPECT_EQ(why_rejected(version), "other format version");
  // Every single-byte change anywhere is caught.
  for (std::size_t i = 0; i < entry.size(); ++i) {
    std::string damaged = entry;
    damaged[i] ^= 0x40;
    EXPECT_FALSE(decode_entry(damaged, "key")) << "byte " << i;
  }
}

}  // namespace
}  // namespace polyfuse::cache
