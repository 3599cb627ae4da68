#include "runtime/cuda/kernel_cache.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "polyfuse/cuda_helpers_embedded.h"
#include "runtime/cuda/cache_entry.h"
#include "runtime/cuda/cuda_headers_embedded.h"
#include "runtime/cuda/hash.h"

namespace polyfuse::cuda {
namespace fs = std::filesystem;
namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// A digest of every header NVRTC may read, so that new helpers invalidate old entries.
const std::string& header_digest() {
  static const std::string digest = [] {
    std::string all;
    for (const auto& [name, text] : cuda_helpers::embedded_headers()) all.append(name).append(text);
    for (const auto& [name, text] : embedded_cuda_headers()) all.append(name).append(text);
    return hex64(hash64(all));
  }();
  return digest;
}

std::optional<std::string> read_whole_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return std::move(s).str();
}

// Writes `bytes` to a temporary file beside `path`, then renames it over `path`.
// Failures are ignored: the cache is an optimisation.
void write_atomically(const fs::path& path, const std::string& bytes) {
  static std::atomic<unsigned> counter{0};
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  const fs::path temp = path.string() + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return;
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  const bool ok = ::close(fd) == 0 && written == bytes.size();
  if (!ok || std::rename(temp.c_str(), path.c_str()) != 0) fs::remove(temp, ec);
}

}  // namespace

CacheConfig cache_config_from_environment() {
  CacheConfig config;
  config.enabled = env("POLYFUSE_DISABLE_CACHE") != "1";
  if (!env("POLYFUSE_CACHE_DIR").empty())
    config.directory = env("POLYFUSE_CACHE_DIR");
  else if (!env("XDG_CACHE_HOME").empty())
    config.directory = fs::path(env("XDG_CACHE_HOME")) / "polyfuse";
  else if (!env("HOME").empty())
    config.directory = fs::path(env("HOME")) / ".cache" / "polyfuse";
  else
    config.directory = fs::temp_directory_path() / "polyfuse-cache";
  return config;
}

KernelCache::KernelCache(CacheConfig config) : config_(std::move(config)) {}

KernelCache& KernelCache::global() {
  static KernelCache cache(cache_config_from_environment());
  return cache;
}

std::string KernelCache::key_text(const NvrtcOptions& options) const {
  std::string text = "polyfuse cuda cache v1\nnvrtc " + nvrtc_version() + "\narch " + options.arch + "\nflags";
  for (const std::string& f : nvrtc_flags(options)) text += " " + f;
  text += "\nheaders " + header_digest() + "\n";
  return text;
}

fs::path KernelCache::entry_path(const std::string& source, const NvrtcOptions& options) const {
  return config_.directory / "cuda" / (hash128_hex(key_text(options) + '\0' + source) + ".pfk");
}

void KernelCache::clear_memory() {
  std::lock_guard lock(mutex_);
  memory_.clear();
}

CacheLookup KernelCache::compile(const std::string& source, const NvrtcOptions& options, const std::string& kernel,
                                 bool use_cache) {
  CacheLookup result;
  if (!use_cache || !config_.enabled) {
    result.output = std::make_shared<const NvrtcOutput>(nvrtc_compile(source, options, kernel));
    return result;
  }
  const std::string key = key_text(options);
  result.entry = entry_path(source, options);
  const std::string name = result.entry.filename().string();
  {
    std::lock_guard lock(mutex_);
    if (auto it = memory_.find(name); it != memory_.end()) {
      result.output = it->second;
      result.outcome = CacheOutcome::memory_hit;
      return result;
    }
  }
  result.outcome = CacheOutcome::miss;
  if (std::optional<std::string> bytes = read_whole_file(result.entry)) {
    if (std::optional<NvrtcOutput> cached = decode_cache_entry(*bytes, key, source, &result.rejected_because)) {
      result.output = std::make_shared<const NvrtcOutput>(std::move(*cached));
      result.outcome = CacheOutcome::disk_hit;
    } else {
      result.outcome = CacheOutcome::rebuilt_corrupt;
    }
  }
  if (!result.output) {
    result.output = std::make_shared<const NvrtcOutput>(nvrtc_compile(source, options, kernel));
    write_atomically(result.entry, encode_cache_entry(key, source, *result.output));
  }
  std::lock_guard lock(mutex_);
  memory_.emplace(name, result.output);
  return result;
}

}  // namespace polyfuse::cuda
