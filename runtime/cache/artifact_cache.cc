#include "runtime/cache/artifact_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "runtime/cache/cache_entry.h"
#include "runtime/cache/content_hash.h"

namespace polyfuse::cache {
namespace {

constexpr const char* kinds[] = {"cuda", "emu", "cpu", "autotune"};

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::optional<std::string> read_whole_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return std::move(s).str();
}

// A fresh name beside `path` for a private temporary file.
fs::path temporary_beside(const fs::path& path) {
  static std::atomic<unsigned> counter{0};
  return path.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

}  // namespace

bool write_file_atomically(const fs::path& path, std::string_view bytes) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  const fs::path temp = temporary_beside(path);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
  if (fd < 0) return false;
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  const bool ok = ::close(fd) == 0 && written == bytes.size() && std::rename(temp.c_str(), path.c_str()) == 0;
  if (!ok) fs::remove(temp, ec);
  return ok;
}

const std::string& compiler_identity(const std::string& compiler) {
  static std::mutex mutex;
  static std::map<std::string, std::string> identities;
  std::lock_guard lock(mutex);
  std::string& identity = identities[compiler];
  if (identity.empty()) {
    std::string version;
    if (FILE* pipe = ::popen(("'" + compiler + "' --version 2>&1").c_str(), "r")) {
      char line[512];
      if (std::fgets(line, sizeof line, pipe)) version = line;
      ::pclose(pipe);
    }
    if (!version.empty() && version.back() == '\n') version.pop_back();
    identity = compiler + "\n" + version;
  }
  return identity;
}

namespace {

// Marks `path` as used now (least-recently-used eviction goes by modification time).
void touch(const fs::path& path) {
  std::error_code ec;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
}

// The loadable object of an entry: <hash>.so beside <hash>.pfc.
fs::path object_of(const fs::path& entry) { return fs::path(entry).replace_extension(".so"); }

// A temporary file (temporary_beside) another process may still be writing, building or about to
// rename into place: clear() and evict_to_fit() leave it alone unless it is an hour old (left over
// from a process that died).
bool in_progress(const fs::directory_entry& file) {
  if (file.path().filename().string().find(".tmp.") == std::string::npos) return false;
  std::error_code ec;
  const fs::file_time_type written = file.last_write_time(ec);
  return !ec && fs::file_time_type::clock::now() - written < std::chrono::hours(1);
}

}  // namespace

CacheConfig cache_config_from_environment() {
  CacheConfig config;
  config.enabled = env("POLYFUSE_DISABLE_CACHE") != "1";
  if (!env("POLYFUSE_CACHE_DIR").empty())
    config.root = env("POLYFUSE_CACHE_DIR");
  else if (!env("XDG_CACHE_HOME").empty())
    config.root = fs::path(env("XDG_CACHE_HOME")) / "polyfuse";
  else if (!env("HOME").empty())
    config.root = fs::path(env("HOME")) / ".cache" / "polyfuse";
  else
    config.root = fs::temp_directory_path() / "polyfuse-cache";
  const std::string mb = env("POLYFUSE_CACHE_MAX_MB");
  if (!mb.empty() && mb.find_first_not_of("0123456789") == std::string::npos && mb.size() < 12)
    config.max_bytes = std::stoull(mb) << 20;
  return config;
}

ArtifactCache::ArtifactCache(CacheConfig config) : config_(std::move(config)) {}

ArtifactCache& ArtifactCache::global() {
  static ArtifactCache cache(cache_config_from_environment());
  return cache;
}

fs::path ArtifactCache::entry_path(std::string_view kind, std::string_view key_text) const {
  return config_.root / std::string(kind) / (hash128_hex(key_text) + ".pfc");
}

Lookup ArtifactCache::load(std::string_view kind, std::string_view key_text) {
  Lookup result;
  if (!config_.enabled) return result;
  result.entry = entry_path(kind, key_text);
  result.outcome = Outcome::miss;
  std::optional<std::string> bytes = read_whole_file(result.entry);
  if (!bytes) return result;
  result.sections = decode_entry(*bytes, key_text, &result.rejected_because);
  if (result.sections) {
    result.outcome = Outcome::hit;
    touch(result.entry);
  } else {
    result.outcome = Outcome::rebuilt_corrupt;
  }
  return result;
}

void ArtifactCache::store(std::string_view kind, std::string_view key_text, const std::vector<std::string_view>& sections) {
  if (!config_.enabled) return;
  write_file_atomically(entry_path(kind, key_text), encode_entry(key_text, sections));
  evict_to_fit();
}

SharedObject ArtifactCache::shared_object(std::string_view kind, std::string_view key_text,
                                          const std::function<void(const fs::path& output)>& build) {
  SharedObject result;
  Lookup cached = load(kind, key_text);
  if (cached.sections && cached.sections->size() == 1) {
    const std::string& object = cached.sections->front();
    const fs::path path = object_of(cached.entry);
    std::optional<std::string> on_disk = read_whole_file(path);
    if ((on_disk && *on_disk == object) || write_file_atomically(path, object)) {
      touch(path);
      result.path = path;
      result.outcome = Outcome::hit;
      return result;
    }
  }
  std::error_code ec;
  const fs::path output = config_.enabled
                              ? temporary_beside(object_of(entry_path(kind, key_text)))
                              : temporary_beside(fs::temp_directory_path() / ("polyfuse-" + hash128_hex(key_text) + ".so"));
  fs::create_directories(output.parent_path(), ec);
  const auto start = std::chrono::steady_clock::now();
  try {
    build(output);
  } catch (...) {
    fs::remove(output, ec);
    throw;
  }
  result.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!config_.enabled) {
    result.path = output;
    result.temporary = true;
    return result;
  }
  result.outcome = cached.outcome == Outcome::rebuilt_corrupt ? Outcome::rebuilt_corrupt : Outcome::miss;
  std::optional<std::string> object = read_whole_file(output);
  if (!object) throw std::runtime_error("polyfuse cache: the build of a " + std::string(kind) + " object reported "
                                        "success but " + output.string() + " cannot be read");
  const fs::path path = object_of(cached.entry);
  store(kind, key_text, {*object});
  // The object is used from its final name when it could be put there, else from the
  // private temporary file.
  if (std::rename(output.c_str(), path.c_str()) == 0) {
    result.path = path;
  } else if (fs::exists(output, ec)) {
    result.path = output;
    result.temporary = true;
  } else {
    throw std::runtime_error("polyfuse cache: " + output.string() + " disappeared before it was put at " + path.string());
  }
  return result;
}

namespace {

// The bytes `file` adds to a cache's size: its size the first time its inode is seen, 0 for
// another link to it (a precompiled header's .gch is a hard link to its entry's object).
std::uint64_t bytes_once(const fs::path& file, std::set<std::pair<dev_t, ino_t>>& seen) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return 0;
  if (st.st_nlink > 1 && !seen.insert({st.st_dev, st.st_ino}).second) return 0;
  return static_cast<std::uint64_t>(st.st_size);
}

}  // namespace

CacheInfo ArtifactCache::info() const {
  CacheInfo info;
  info.config = config_;
  for (const char* kind : kinds) {
    CacheInfo::Kind k{kind};
    std::error_code ec;
    std::set<std::pair<dev_t, ino_t>> seen;
    for (fs::directory_iterator it(config_.root / kind, ec), end; !ec && it != end; it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      k.bytes += bytes_once(it->path(), seen);
      if (it->path().extension() == ".pfc") ++k.entries;
    }
    info.kinds.push_back(k);
  }
  return info;
}

std::string CacheInfo::to_string() const {
  std::string text = "cache: " + config.root.string() + (config.enabled ? "" : " (disabled: POLYFUSE_DISABLE_CACHE=1)") +
                     "\nlimit: " + std::to_string(config.max_bytes >> 20) + " MiB (POLYFUSE_CACHE_MAX_MB)\n";
  std::uint64_t total = 0;
  for (const Kind& k : kinds) {
    text += k.name + ": " + std::to_string(k.entries) + " entries, " + std::to_string((k.bytes + (1 << 19)) >> 20) + " MiB\n";
    total += k.bytes;
  }
  return text + "total: " + std::to_string((total + (1 << 19)) >> 20) + " MiB\n";
}

std::uint64_t ArtifactCache::clear() {
  std::uint64_t freed = 0;
  for (const char* kind : kinds) {
    std::error_code ec;
    std::vector<fs::path> files;
    for (fs::directory_iterator it(config_.root / kind, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file(ec) && !in_progress(*it)) files.push_back(it->path());
    for (const fs::path& file : files) {
      const std::uint64_t size = fs::file_size(file, ec);
      if (fs::remove(file, ec)) freed += size;
    }
  }
  return freed;
}

void ArtifactCache::evict_to_fit() {
  // An entry is every file named <hash>.*: the .pfc, its loadable object, a builder's source.
  struct Entry {
    std::vector<fs::path> files;
    std::uint64_t bytes = 0;
    fs::file_time_type used{};
    bool has_pfc = false;
  };
  std::map<fs::path, Entry> entries;  // by directory / stem
  std::uint64_t total = 0;
  std::set<std::pair<dev_t, ino_t>> seen;  // hard links count once
  for (const char* kind : kinds) {
    std::error_code ec;
    for (fs::directory_iterator it(config_.root / kind, ec), end; !ec && it != end; it.increment(ec)) {
      if (!it->is_regular_file(ec) || in_progress(*it)) continue;
      const fs::path& file = it->path();
      const std::string name = file.filename().string();
      if (name.find(".tmp.") != std::string::npos) {  // a leftover of a process that died
        std::error_code ignored;
        fs::remove(file, ignored);
        continue;
      }
      Entry& entry = entries[file.parent_path() / name.substr(0, name.find('.'))];
      const std::uint64_t size = bytes_once(file, seen);
      entry.files.push_back(file);
      entry.bytes += size;
      total += size;
      if (file.extension() == ".pfc") {
        entry.has_pfc = true;
        entry.used = it->last_write_time(ec);
      }
    }
  }
  if (total <= config_.max_bytes) return;
  std::vector<Entry*> order;
  for (auto& [stem, entry] : entries)
    if (entry.has_pfc) order.push_back(&entry);
  std::sort(order.begin(), order.end(), [](const Entry* a, const Entry* b) { return a->used < b->used; });
  for (const Entry* entry : order) {
    if (total <= config_.max_bytes) break;
    std::error_code ec;
    for (const fs::path& file : entry->files) fs::remove(file, ec);
    total -= entry->bytes;
  }
}

}  // namespace polyfuse::cache
