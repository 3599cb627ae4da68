// The NVRTC result cache: misses, memory and disk hits, separate keys per arch and
// flags, and corrupt or truncated entries that are rebuilt, never loaded.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "handwritten_kernel.h"
#include "runtime/cache/content_hash.h"
#include "runtime/cuda/kernel_cache.h"
#include "test_dir.h"

namespace {
using namespace polyfuse::cuda;
namespace fs = std::filesystem;

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}
std::size_t count_files(const fs::path& dir) {
  std::size_t n = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) ++n;
  return n;
}

TEST(KernelCache, MissThenMemoryHitThenDiskHitInAFreshProcessCache) {
  const pf_runtime_test::ScopedDirectory scoped("cache");
  const fs::path& dir = scoped.path;
  const std::string source = pf_runtime_test::scale_relu_source("hits");
  NvrtcOptions options;
  options.arch = "sm_80";
  KernelCache cache({true, dir});
  const CacheLookup first = cache.compile(source, options, "scale_relu");
  EXPECT_EQ(first.outcome, CacheOutcome::miss);
  EXPECT_TRUE(fs::exists(first.entry));
  EXPECT_EQ(first.entry.parent_path(), dir / "cuda");
  EXPECT_EQ(count_files(dir), 1u);  // no temporary file left behind

  const CacheLookup second = cache.compile(source, options, "scale_relu");
  EXPECT_EQ(second.outcome, CacheOutcome::memory_hit);
  EXPECT_EQ(second.output, first.output);

  KernelCache other({true, dir});  // as another process would
  const CacheLookup third = other.compile(source, options, "scale_relu");
  EXPECT_EQ(third.outcome, CacheOutcome::disk_hit);
  EXPECT_EQ(third.output->cubin, first.output->cubin);
  EXPECT_EQ(third.output->ptx, first.output->ptx);
}

TEST(KernelCache, KeyDependsOnSourceArchAndFlags) {
  const pf_runtime_test::ScopedDirectory scoped("cache");
  const fs::path& dir = scoped.path;
  KernelCache cache({true, dir});
  NvrtcOptions sm80, sm90, fast;
  sm80.arch = "sm_80";
  sm90.arch = "sm_90";
  fast.arch = "sm_90";
  fast.fast_math = true;
  const std::string a = pf_runtime_test::scale_relu_source("a"), b = pf_runtime_test::scale_relu_source("b");
  EXPECT_NE(cache.entry_path(a, sm80), cache.entry_path(a, sm90));
  EXPECT_NE(cache.entry_path(a, sm90), cache.entry_path(a, fast));
  EXPECT_NE(cache.entry_path(a, sm90), cache.entry_path(b, sm90));
  EXPECT_EQ(cache.entry_path(a, sm90), KernelCache({true, dir}).entry_path(a, sm90));
  EXPECT_NE(cache.key_text(sm90).find("nvrtc " + nvrtc_version()), std::string::npos);
  EXPECT_EQ(cache.compile(a, sm80, "scale_relu").outcome, CacheOutcome::miss);
  EXPECT_EQ(cache.compile(a, sm90, "scale_relu").outcome, CacheOutcome::miss);
}

TEST(KernelCache, DisabledCompilesWithoutTouchingTheDisk) {
  const pf_runtime_test::ScopedDirectory scoped("cache");
  const fs::path& dir = scoped.path;
  KernelCache cache({false, dir});
  const std::string source = pf_runtime_test::scale_relu_source("disabled");
  EXPECT_EQ(cache.compile(source, NvrtcOptions{}, "scale_relu").outcome, CacheOutcome::disabled);
  EXPECT_EQ(cache.compile(source, NvrtcOptions{}, "scale_relu").outcome, CacheOutcome::disabled);
  EXPECT_EQ(count_files(dir), 0u);
  KernelCache enabled({true, dir});
  EXPECT_EQ(enabled.compile(source, NvrtcOptions{}, "scale_relu", /*use_cache=*/false).outcome, CacheOutcome::disabled);
  EXPECT_EQ(count_files(dir), 0u);
}

TEST(KernelCache, EnvironmentChoosesDirectoryAndSwitch) {
  const char* saved = std::getenv("POLYFUSE_CACHE_DIR");
  const std::string saved_value = saved ? saved : "";
  setenv("POLYFUSE_CACHE_DIR", "/some/where", 1);
  unsetenv("POLYFUSE_DISABLE_CACHE");
  EXPECT_EQ(cache_config_from_environment().root, fs::path("/some/where"));
  EXPECT_TRUE(cache_config_from_environment().enabled);
  unsetenv("POLYFUSE_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(cache_config_from_environment().root, fs::path("/xdg/polyfuse"));
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(cache_config_from_environment().root, fs::path("/home/someone/.cache/polyfuse"));
  setenv("POLYFUSE_DISABLE_CACHE", "1", 1);
  EXPECT_FALSE(cache_config_from_environment().enabled);
  unsetenv("POLYFUSE_DISABLE_CACHE");
  if (saved) setenv("POLYFUSE_CACHE_DIR", saved_value.c_str(), 1);
}

// A corrupt entry is reported, compiled again and replaced by a valid one.
void expect_rebuilt(KernelCache& cache, const std::string& source, const NvrtcOptions& options, const fs::path& entry,
                    const std::vector<char>& good_cubin, const char* reason_part) {
  KernelCache fresh(cache.config());  // nothing in memory
  const CacheLookup again = fresh.compile(source, options, "scale_relu");
  EXPECT_EQ(again.outcome, CacheOutcome::rebuilt_corrupt);
  EXPECT_NE(again.rejected_because.find(reason_part), std::string::npos) << again.rejected_because;
  EXPECT_EQ(again.output->cubin, good_cubin);
  EXPECT_EQ(KernelCache(cache.config()).compile(source, options, "scale_relu").outcome, CacheOutcome::disk_hit);
  // The replacement is a whole entry: header (16 + 8 per section + 16 bytes) and the four
  // sections (key, PTX, cubin, log) it announces.
  const std::string bytes = read_bytes(entry);
  std::size_t sections = 0;
  for (int i = 0; i < 4; ++i)
    for (int b = 0; b < 8; ++b) sections += std::size_t(static_cast<unsigned char>(bytes[16 + 8 * i + b])) << (8 * b);
  EXPECT_EQ(bytes.size(), 16 + 8 * 4 + 16 + sections);
}

TEST(KernelCache, TruncatedEntryIsRebuiltNotLoaded) {
  const pf_runtime_test::ScopedDirectory scoped("cache");
  const fs::path& dir = scoped.path;
  KernelCache cache({true, dir});
  const std::string source = pf_runtime_test::scale_relu_source("truncated");
  const CacheLookup first = cache.compile(source, NvrtcOptions{}, "scale_relu");
  const std::string bytes = read_bytes(first.entry);
  write_bytes(first.entry, bytes.substr(0, bytes.size() - 100));
  expect_rebuilt(cache, source, NvrtcOptions{}, first.entry, first.output->cubin, "truncated");
  write_bytes(first.entry, bytes.substr(0, 40));
  expect_rebuilt(cache, source, NvrtcOptions{}, first.entry, first.output->cubin, "truncated");
  write_bytes(first.entry, "");
  expect_rebuilt(cache, source, NvrtcOptions{}, first.entry, first.output->cubin, "truncated");
}

TEST(KernelCache, FlippedByteIsRebuiltNotLoaded) {
  const pf_runtime_test::ScopedDirectory scoped("cache");
  const fs::path& dir = scoped.path;
  KernelCache cache({true, dir});
  const std::string source = pf_runtime_test::scale_relu_source("flipped");
  const CacheLookup first = cache.compile(source, NvrtcOptions{}, "scale_relu");
  const std::string bytes = read_bytes(first.entry);
  std::string payload_flip = bytes;
  payload_flip[payload_flip.size() / 2] ^= 0x10;  // inside the payload (the cubin or PTX)
  write_bytes(first.entry, payload_flip);
  expect_rebuilt(cache, source, NvrtcOptions{}, first.entry, first.output->cubin, "payload checksum");
  std::string header_flip = bytes;
  header_flip[20] ^= 0x01;  // a section size
  write_bytes(first.entry, header_flip);
  expect_rebuilt(cache, source, NvrtcOptions{}, first.entry, first.output->cubin, "header checksum");
}

// The entry format and the hash have their own tests in tests/cache.

}  // namespace
