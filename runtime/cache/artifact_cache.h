// One content-addressed disk cache for every artefact polyfuse builds: NVRTC results
// (kind "cuda"), the emulator's shared objects ("emu"), the CPU target's ("cpu") and the autotuner's
// winners ("autotune": runtime/api/autotune.h).
//
// Where: $POLYFUSE_CACHE_DIR, else $XDG_CACHE_HOME/polyfuse, else ~/.cache/polyfuse, else
// <tmp>/polyfuse-cache; an entry is <root>/<kind>/<32 hex digits of its key>.pfc (format:
// cache_entry.h). POLYFUSE_DISABLE_CACHE=1 turns the cache off. POLYFUSE_CACHE_MAX_MB
// bounds its size (default 2048): after each store the least recently used entries go
// until the rest fits. `polyfuse cache info|clear` shows and empties it.
//
// Writers write a private temporary file and rename it over the entry, so readers never
// see a partial entry and concurrent writers of one key all succeed. An entry that fails
// its checks (truncated, corrupt, another key) is never used: it is rebuilt and replaced.
// A shared object must be a file to be loaded: the verified entry's object is written
// beside it (<hash>.so, atomically) and compared with the entry each time it is used.
// Other files of an entry (a builder's <hash>.cu or .cpp, kept to be read) share its name
// and are evicted with it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace polyfuse::cache {

namespace fs = std::filesystem;

struct CacheConfig {
  bool enabled = true;
  fs::path root;
  std::uint64_t max_bytes = std::uint64_t{2048} << 20;
};

// The configuration the environment asks for (see the file comment).
CacheConfig cache_config_from_environment();

// Writes `bytes` to a private temporary file beside `path`, then renames it over `path`,
// so that readers see the old file or the new one, never a part. False on failure.
bool write_file_atomically(const fs::path& path, std::string_view bytes);

// "<compiler>\n<first line of `compiler --version`>", computed once per compiler and
// process: the part of a build's cache key that names the toolchain.
const std::string& compiler_identity(const std::string& compiler);

// How a lookup was answered.
enum class Outcome { disabled, miss, hit, rebuilt_corrupt };

struct Lookup {
  std::optional<std::vector<std::string>> sections;  // the artefact, on a hit
  Outcome outcome = Outcome::disabled;
  fs::path entry;                // "" when disabled
  std::string rejected_because;  // rebuilt_corrupt: what was wrong with the entry
};

// A shared object ready for dlopen.
struct SharedObject {
  fs::path path;
  Outcome outcome = Outcome::disabled;
  double build_seconds = 0;  // 0 on a hit
  bool temporary = false;    // cache disabled: the caller removes it once loaded
};

// What `polyfuse cache info` prints.
struct CacheInfo {
  struct Kind {
    std::string name;
    std::size_t entries = 0;
    std::uint64_t bytes = 0;  // entries and their loadable objects
  };
  CacheConfig config;
  std::vector<Kind> kinds;
  std::string to_string() const;
};

class ArtifactCache {
 public:
  explicit ArtifactCache(CacheConfig config);

  // The process-wide cache, configured from the environment at first use.
  static ArtifactCache& global();

  const CacheConfig& config() const { return config_; }
  fs::path entry_path(std::string_view kind, std::string_view key_text) const;

  // The sections stored for `key_text`, if an intact entry exists.
  Lookup load(std::string_view kind, std::string_view key_text);
  // Stores `sections` for `key_text` (failures are ignored: the cache is an optimisation),
  // then evicts down to the size bound.
  void store(std::string_view kind, std::string_view key_text, const std::vector<std::string_view>& sections);

  // The shared object for `key_text`: from the cache, else `build(output)` writes it to
  // `output` (and throws on failure), and it is stored.
  SharedObject shared_object(std::string_view kind, std::string_view key_text,
                             const std::function<void(const fs::path& output)>& build);

  CacheInfo info() const;
  // Removes every entry (and temporary files over an hour old: a younger one may be another
  // process's build in progress); returns the bytes freed.
  std::uint64_t clear();
  // Removes the least recently used entries until the cache holds at most max_bytes.
  void evict_to_fit();

 private:
  CacheConfig config_;
};

}  // namespace polyfuse::cache
