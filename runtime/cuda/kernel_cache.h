// The NVRTC result cache: in memory (this process) and on disk (shared by processes), the
// latter the artefact cache's "cuda" kind (runtime/cache/artifact_cache.h: location,
// POLYFUSE_DISABLE_CACHE, size bound, atomic writes, checksummed entries that are rebuilt
// rather than loaded when damaged). The key is the generated source, the NVRTC flags (arch
// included), the NVRTC version and a digest of the embedded headers, stored in full in the
// entry; its sections are the PTX, the cubin and NVRTC's log.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "runtime/cache/artifact_cache.h"
#include "runtime/cuda/nvrtc_compiler.h"

namespace polyfuse::cuda {

using cache::CacheConfig;
using cache::cache_config_from_environment;

// How a lookup was answered.
enum class CacheOutcome { disabled, miss, memory_hit, disk_hit, rebuilt_corrupt };

struct CacheLookup {
  std::shared_ptr<const NvrtcOutput> output;
  CacheOutcome outcome = CacheOutcome::disabled;
  std::filesystem::path entry;   // the disk entry ("" when disabled)
  std::string rejected_because;  // for rebuilt_corrupt: what was wrong with the entry
};

class KernelCache {
 public:
  explicit KernelCache(CacheConfig config);

  // The cached result for (`source`, `options`), else compiles `kernel` with NVRTC and
  // stores it. `use_cache = false` compiles without looking or storing.
  CacheLookup compile(const std::string& source, const NvrtcOptions& options, const std::string& kernel,
                      bool use_cache = true);

  // The key text of `options` (the source follows it in an entry's key) and the entry
  // path of (`source`, `options`).
  std::string key_text(const NvrtcOptions& options) const;
  std::filesystem::path entry_path(const std::string& source, const NvrtcOptions& options) const;

  void clear_memory();
  const CacheConfig& config() const { return disk_.config(); }

  // The process-wide cache, configured from the environment at first use.
  static KernelCache& global();

 private:
  cache::ArtifactCache disk_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const NvrtcOutput>> memory_;  // by entry name
};

}  // namespace polyfuse::cuda
