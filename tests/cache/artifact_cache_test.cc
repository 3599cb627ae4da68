// The artefact cache on a private directory: store/load, shared objects built once and
// reused, damaged entries and objects rebuilt, least-recently-used eviction under the size
// bound, clearing, the disabled mode, and concurrent writers of one key.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "runtime/cache/artifact_cache.h"

namespace polyfuse::cache {
namespace {

fs::path fresh_root(const std::string& name) {
  fs::path root = fs::temp_directory_path() / ("polyfuse-cache-test-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(root);
  return root;
}

ArtifactCache cache_at(const fs::path& root, std::uint64_t max_bytes = std::uint64_t{1} << 30) {
  CacheConfig config;
  config.root = root;
  config.max_bytes = max_bytes;
  return ArtifactCache(config);
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

TEST(ArtifactCache, StoresAndLoadsByKind) {
  ArtifactCache cache = cache_at(fresh_root("store"));
  EXPECT_EQ(cache.load("cuda", "key").outcome, Outcome::miss);
  cache.store("cuda", "key", {"ptx", "cubin"});
  Lookup hit = cache.load("cuda", "key");
  ASSERT_EQ(hit.outcome, Outcome::hit);
  EXPECT_EQ(*hit.sections, (std::vector<std::string>{"ptx", "cubin"}));
  EXPECT_EQ(cache.load("emu", "key").outcome, Outcome::miss) << "kinds are separate";
  EXPECT_EQ(hit.entry.parent_path().filename(), "cuda");
}

TEST(ArtifactCache, DamagedEntryIsReportedAndReplaced) {
  ArtifactCache cache = cache_at(fresh_root("damaged"));
  cache.store("cuda", "key", {"artefact"});
  const fs::path entry = cache.entry_path("cuda", "key");
  std::string bytes = read(entry);
  write(entry, bytes.substr(0, bytes.size() - 3));
  Lookup damaged = cache.load("cuda", "key");
  EXPECT_EQ(damaged.outcome, Outcome::rebuilt_corrupt);
  EXPECT_EQ(damaged.rejected_because, "size does not match the header (truncated)");
  EXPECT_FALSE(damaged.sections);
  cache.store("cuda", "key", {"artefact"});
  EXPECT_EQ(cache.load("cuda", "key").outcome, Outcome::hit);
}

TEST(ArtifactCache, SharedObjectIsBuiltOnceThenLoadedFromTheCache) {
  ArtifactCache cache = cache_at(fresh_root("object"));
  int builds = 0;
  auto build = [&](const fs::path& output) {
    ++builds;
    write(output, "ELF pretend object " + std::to_string(builds));
  };
  SharedObject first = cache.shared_object("emu", "kernel source", build);
  EXPECT_EQ(first.outcome, Outcome::miss);
  EXPECT_FALSE(first.temporary);
  EXPECT_EQ(read(first.path), "ELF pretend object 1");
  SharedObject second = cache.shared_object("emu", "kernel source", build);
  EXPECT_EQ(second.outcome, Outcome::hit);
  EXPECT_EQ(second.path, first.path);
  EXPECT_EQ(builds, 1);

  // A damaged loadable object is restored from its (verified) entry, not loaded.
  write(second.path, "garbage");
  SharedObject restored = cache.shared_object("emu", "kernel source", build);
  EXPECT_EQ(restored.outcome, Outcome::hit);
  EXPECT_EQ(read(restored.path), "ELF pretend object 1");
  EXPECT_EQ(builds, 1);

  // A damaged entry is rebuilt.
  write(cache.entry_path("emu", "kernel source"), "garbage");
  SharedObject rebuilt = cache.shared_object("emu", "kernel source", build);
  EXPECT_EQ(rebuilt.outcome, Outcome::rebuilt_corrupt);
  EXPECT_EQ(read(rebuilt.path), "ELF pretend object 2");
}

TEST(ArtifactCache, FailedBuildLeavesNothingBehind) {
  const fs::path root = fresh_root("failed");
  ArtifactCache cache = cache_at(root);
  auto failing = [](const fs::path& output) {
    write(output, "half");
    throw std::runtime_error("compiler said no");
  };
  EXPECT_THROW(cache.shared_object("cpu", "key", failing), std::runtime_error);
  std::size_t files = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) files += it->is_regular_file();
  EXPECT_EQ(files, 0u);
}

TEST(ArtifactCache, EvictsLeastRecentlyUsedEntriesToFit) {
  const fs::path root = fresh_root("evict");
  ArtifactCache cache = cache_at(root, 250 * 1024);
  const std::string blob(100 * 1024, 'x');
  cache.store("cuda", "a", {blob});
  cache.store("cuda", "b", {blob});
  // Make "a" the most recently used, then a third entry must push out "b".
  fs::last_write_time(cache.entry_path("cuda", "b"), fs::file_time_type::clock::now() - std::chrono::hours(1));
  ASSERT_EQ(cache.load("cuda", "a").outcome, Outcome::hit);
  cache.store("cuda", "c", {blob});
  EXPECT_EQ(cache.load("cuda", "a").outcome, Outcome::hit);
  EXPECT_EQ(cache.load("cuda", "b").outcome, Outcome::miss);
  EXPECT_EQ(cache.load("cuda", "c").outcome, Outcome::hit);
  CacheInfo info = cache.info();
  EXPECT_EQ(info.kinds[0].name, "cuda");
  EXPECT_EQ(info.kinds[0].entries, 2u);
  EXPECT_LE(info.kinds[0].bytes, 250u * 1024);
}

// A temporary file another process is building (or about to rename into place) is no entry:
// neither eviction nor clear() removes it while it is young (CI once lost a kernel's object this
// way: "dlopen failed: <hash>.so.tmp.PID.N: No such file"); one an hour old is a leftover.
TEST(ArtifactCache, LeavesOtherProcessesTemporaryFilesAlone) {
  const fs::path root = fresh_root("in-progress");
  ArtifactCache cache = cache_at(root, 150 * 1024);
  const std::string blob(100 * 1024, 'x');
  const fs::path building = root / "emu" / "0123456789abcdef0123456789abcdef.so.tmp.4242.0";
  const fs::path leftover = root / "emu" / "fedcba9876543210fedcba9876543210.so.tmp.4141.0";
  fs::create_directories(building.parent_path());
  write(building, blob);
  write(leftover, blob);
  fs::last_write_time(leftover, fs::file_time_type::clock::now() - std::chrono::hours(2));
  cache.store("emu", "a", {blob});
  cache.store("emu", "b", {blob});  // over the bound: "a" goes
  EXPECT_EQ(cache.load("emu", "a").outcome, Outcome::miss);
  EXPECT_EQ(cache.load("emu", "b").outcome, Outcome::hit);
  EXPECT_TRUE(fs::exists(building));
  cache.clear();
  EXPECT_TRUE(fs::exists(building));
  EXPECT_FALSE(fs::exists(leftover));
}

TEST(ArtifactCache, ClearRemovesEverything) {
  ArtifactCache cache = cache_at(fresh_root("clear"));
  cache.store("cuda", "a", {"x"});
  cache.shared_object("cpu", "b", [](const fs::path& output) { write(output, "object"); });
  EXPECT_GT(cache.clear(), 0u);
  for (const CacheInfo::Kind& kind : cache.info().kinds) {
    EXPECT_EQ(kind.entries, 0u) << kind.name;
    EXPECT_EQ(kind.bytes, 0u) << kind.name;
  }
  EXPECT_NE(cache.info().to_string().find("total: 0 MiB"), std::string::npos) << cache.info().to_string();
}

// A hard link to an entry's object (a precompiled header's .gch beside its stub) is not more
// bytes: the cache's size counts each file once.
TEST(ArtifactCache, HardLinksToAnEntryCountOnce) {
  const fs::path root = fresh_root("links");
  ArtifactCache cache = cache_at(root);
  const SharedObject object =
      cache.shared_object("cpu", "b", [](const fs::path& output) { write(output, std::string(100000, 'x')); });
  const auto total = [&] {
    std::uint64_t bytes = 0;
    for (const CacheInfo::Kind& kind : cache.info().kinds) bytes += kind.bytes;
    return bytes;
  };
  const std::uint64_t before = total();
  fs::create_hard_link(object.path, object.path.string().substr(0, object.path.string().size() - 3) + ".h.gch");
  const std::uint64_t after = total();
  EXPECT_GE(before, 100000u);
  EXPECT_EQ(after, before);
  fs::remove_all(root);
}

TEST(ArtifactCache, DisabledCacheBuildsEveryTimeIntoATemporaryFile) {
  CacheConfig config;
  config.enabled = false;
  config.root = fresh_root("disabled");
  ArtifactCache cache(config);
  cache.store("cuda", "a", {"x"});
  EXPECT_EQ(cache.load("cuda", "a").outcome, Outcome::disabled);
  int builds = 0;
  auto build = [&](const fs::path& output) { write(output, std::to_string(++builds)); };
  SharedObject one = cache.shared_object("emu", "k", build);
  SharedObject two = cache.shared_object("emu", "k", build);
  EXPECT_TRUE(one.temporary);
  EXPECT_NE(one.path, two.path);
  EXPECT_EQ(builds, 2);
  EXPECT_FALSE(fs::exists(config.root));
  fs::remove(one.path);
  fs::remove(two.path);
}

TEST(ArtifactCache, ConcurrentWritersOfOneKeyAllSucceed) {
  ArtifactCache cache = cache_at(fresh_root("concurrent"));
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        SharedObject object = cache.shared_object("emu", "same key", [](const fs::path& output) { write(output, "the object"); });
        if (read(object.path) != "the object") ++wrong;
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(cache.load("emu", "same key").outcome, Outcome::hit);
}

}  // namespace
}  // namespace polyfuse::cache
