// The NVRTC result cache: in memory (this process) and on disk (shared by processes).
//
// Directory: $POLYFUSE_CACHE_DIR, else $XDG_CACHE_HOME/polyfuse, else ~/.cache/polyfuse;
// entries live in its `cuda/` subfolder as <32 hex digits>.pfk (see cache_entry.h).
// POLYFUSE_DISABLE_CACHE=1 turns both levels off. The key hashes the generated source,
// the NVRTC flags (arch included), the NVRTC version and a digest of the embedded
// headers. Writers write a private temporary file and rename it over the entry, so
// readers never see a partial entry and concurrent writers of one key all succeed; an
// entry that fails its checks is never loaded but compiled again and replaced.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "runtime/cuda/nvrtc_compiler.h"

namespace polyfuse::cuda {

// Where (and whether) to cache.
struct CacheConfig {
  bool enabled = true;
  std::filesystem::path directory;  // the root; entries go to directory / "cuda"
};

// The configuration the environment asks for (see the file comment).
CacheConfig cache_config_from_environment();

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

  // The key text and the entry path of (`source`, `options`).
  std::string key_text(const NvrtcOptions& options) const;
  std::filesystem::path entry_path(const std::string& source, const NvrtcOptions& options) const;

  void clear_memory();
  const CacheConfig& config() const { return config_; }

  // The process-wide cache, configured from the environment at first use.
  static KernelCache& global();

 private:
  CacheConfig config_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const NvrtcOutput>> memory_;  // by entry name
};

}  // namespace polyfuse::cuda
