#include "runtime/cuda/kernel_cache.h"

#include "polyfuse/cuda_helpers_embedded.h"
#include "runtime/cuda/cuda_headers_embedded.h"
#include "runtime/cache/content_hash.h"

namespace polyfuse::cuda {
namespace fs = std::filesystem;
namespace {

// A digest of every header NVRTC may read, so that new helpers invalidate old entries.
const std::string& header_digest() {
  static const std::string digest = [] {
    std::string all;
    for (const auto& [name, text] : cuda_helpers::embedded_headers()) all.append(name).append(text);
    for (const auto& [name, text] : embedded_cuda_headers()) all.append(name).append(text);
    return cache::hex64(cache::hash64(all));
  }();
  return digest;
}

}  // namespace

KernelCache::KernelCache(CacheConfig config) : disk_(std::move(config)) {}

KernelCache& KernelCache::global() {
  static KernelCache cache(cache_config_from_environment());
  return cache;
}

std::string KernelCache::key_text(const NvrtcOptions& options) const {
  std::string text = "polyfuse cuda cache v2\nnvrtc " + nvrtc_version() + "\narch " + options.arch + "\nflags";
  for (const std::string& f : nvrtc_flags(options)) text += " " + f;
  text += "\nheaders " + header_digest() + "\n";
  return text;
}

// The whole key of an entry: the options' key text, then the source.
static std::string entry_key(const std::string& options_key, const std::string& source) {
  return options_key + '\0' + source;
}

fs::path KernelCache::entry_path(const std::string& source, const NvrtcOptions& options) const {
  return disk_.entry_path("cuda", entry_key(key_text(options), source));
}

void KernelCache::clear_memory() {
  std::lock_guard lock(mutex_);
  memory_.clear();
}

CacheLookup KernelCache::compile(const std::string& source, const NvrtcOptions& options, const std::string& kernel,
                                 bool use_cache) {
  CacheLookup result;
  if (!use_cache || !disk_.config().enabled) {
    result.output = std::make_shared<const NvrtcOutput>(nvrtc_compile(source, options, kernel));
    return result;
  }
  const std::string key = entry_key(key_text(options), source);
  result.entry = disk_.entry_path("cuda", key);
  const std::string name = result.entry.filename().string();
  {
    std::lock_guard lock(mutex_);
    if (auto it = memory_.find(name); it != memory_.end()) {
      result.output = it->second;
      result.outcome = CacheOutcome::memory_hit;
      return result;
    }
  }
  cache::Lookup disk = disk_.load("cuda", key);
  result.outcome = disk.outcome == cache::Outcome::rebuilt_corrupt ? CacheOutcome::rebuilt_corrupt : CacheOutcome::miss;
  result.rejected_because = disk.rejected_because;
  if (disk.sections && disk.sections->size() == 3 && !(*disk.sections)[1].empty()) {
    NvrtcOutput cached;
    cached.ptx = std::move((*disk.sections)[0]);
    cached.cubin.assign((*disk.sections)[1].begin(), (*disk.sections)[1].end());
    cached.log = std::move((*disk.sections)[2]);
    result.output = std::make_shared<const NvrtcOutput>(std::move(cached));
    result.outcome = CacheOutcome::disk_hit;
  } else if (disk.sections) {
    result.outcome = CacheOutcome::rebuilt_corrupt;
    result.rejected_because = "not an NVRTC result (sections)";
  }
  if (!result.output) {
    result.output = std::make_shared<const NvrtcOutput>(nvrtc_compile(source, options, kernel));
    const NvrtcOutput& out = *result.output;
    disk_.store("cuda", key, {out.ptx, std::string_view(out.cubin.data(), out.cubin.size()), out.log});
  }
  std::lock_guard lock(mutex_);
  memory_.emplace(name, result.output);
  return result;
}

}  // namespace polyfuse::cuda
