#include "runtime/cpu/cpu_module.h"

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>

#include "runtime/paths/data_root.h"

namespace polyfuse::cpu_runtime {
namespace fs = std::filesystem;
namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// 64-bit FNV-1a, continued from `hash`.
std::uint64_t fnv1a(std::string_view bytes, std::uint64_t hash) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::string hex(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::string read_file(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string quote(const std::string& word) {
  std::string text = "'";
  for (char c : word) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return text + "'";
}

// Runs `command` through the shell; returns its exit status and output (stderr too).
int run_command(const std::string& command, std::string& output) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  return ::pclose(pipe);
}

// The compiler polyfuse was built with, or `c++` where that path does not exist (a
// relocated copy on another machine).
std::string compiler_of(const CpuBuildOptions& options) {
  if (!options.compiler.empty()) return options.compiler;
  std::error_code ec;
  return fs::exists(POLYFUSE_CPU_CXX, ec) ? POLYFUSE_CPU_CXX : "c++";
}

// kernels/cpu's public headers and static library: from the data root (runtime/paths); the
// library from the build tree unless the data root holds a copy of it.
struct KernelsLocation {
  fs::path include;
  fs::path library;
};
KernelsLocation kernels_location() {
  const fs::path root = paths::data_root(reinterpret_cast<const void*>(&cpu_cache_directory), POLYFUSE_SOURCE_ROOT).path;
  const fs::path copy = root / "kernels/cpu/libpolyfuse_kernels_cpu.a";
  std::error_code ec;
  return {root / "kernels/cpu/include", fs::exists(copy, ec) ? copy : fs::path(POLYFUSE_CPU_KERNELS_LIBRARY)};
}

// What the key depends on besides the source: compiler identity and the kernels.
const std::string& toolchain_identity(const std::string& compiler) {
  static std::mutex mutex;
  static std::map<std::string, std::string> identities;
  std::lock_guard lock(mutex);
  std::string& identity = identities[compiler];
  if (identity.empty()) {
    std::string version;
    run_command(quote(compiler) + " --version", version);
    identity = compiler + "\n" + version.substr(0, version.find('\n')) + "\nkernels " +
               hex(fnv1a(read_file(kernels_location().library), 0xcbf29ce484222325ull));
  }
  return identity;
}

struct Loaded {
  void (*entry)(void* const*) = nullptr;
  std::string path;
};

void* open_library(const std::string& path) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw std::runtime_error("cannot load " + path + ": " + ::dlerror());
  return handle;  // never closed: see the header
}

}  // namespace

fs::path cpu_cache_directory() {
  fs::path root;
  if (!env("POLYFUSE_CACHE_DIR").empty()) root = env("POLYFUSE_CACHE_DIR");
  else if (!env("XDG_CACHE_HOME").empty()) root = fs::path(env("XDG_CACHE_HOME")) / "polyfuse";
  else if (!env("HOME").empty()) root = fs::path(env("HOME")) / ".cache" / "polyfuse";
  else root = fs::temp_directory_path() / "polyfuse-cache";
  return root / "cpu";
}

CpuModule CpuModule::load(const std::string& source, const std::string& entry,
                          const CpuBuildOptions& options) {
  const std::string compiler = compiler_of(options);
  std::string flags;
  for (const std::string& flag : options.flags) {
    flags += ' ';  // (not " " + quote(): GCC 12 warns falsely, -Wrestrict)
    flags += quote(flag);
  }
  const std::string key_text = toolchain_identity(compiler) + "\n" + flags + "\n" + source;
  const std::string key = hex(fnv1a(key_text, 0xcbf29ce484222325ull)) +
                          hex(fnv1a(key_text, 0x84222325cbf29ce4ull));

  static std::mutex mutex;
  static std::map<std::string, Loaded> loaded;  // key + entry -> loaded library
  std::lock_guard lock(mutex);
  CpuModule module;
  const auto known = loaded.find(key + entry);
  if (known != loaded.end()) {
    module.entry_ = known->second.entry;
    module.path_ = known->second.path;
    module.from_cache_ = true;
    return module;
  }

  const bool cache = env("POLYFUSE_DISABLE_CACHE") != "1";
  std::error_code error;
  fs::path directory = cache ? cpu_cache_directory()
                             : fs::temp_directory_path() / ("polyfuse-cpu-" + std::to_string(::getpid()));
  fs::create_directories(directory, error);
  if (error) throw std::runtime_error("cannot create " + directory.string() + ": " + error.message());
  const fs::path library = directory / (key + ".so");
  module.path_ = library.string();

  if (cache && fs::exists(library)) {
    module.from_cache_ = true;
  } else {
    std::mt19937_64 random(std::random_device{}());
    const std::string unique = ".tmp." + std::to_string(::getpid()) + "." + hex(random());
    const fs::path source_file = directory / (key + ".cpp");
    const fs::path temp_source = directory / (key + unique + ".cpp");
    const fs::path temp_library = directory / (key + unique + ".so");
    {
      std::ofstream out(temp_source, std::ios::binary);
      out << source;
      if (!out) throw std::runtime_error("cannot write " + temp_source.string());
    }
    const KernelsLocation kernels = kernels_location();
    const std::string command = quote(compiler) + flags + " -shared -fPIC -I" +
                                quote(kernels.include.string()) + " " + quote(temp_source.string()) +
                                " " + quote(kernels.library.string()) +
                                " -Wl,--exclude-libs,ALL -o " + quote(temp_library.string());
    const auto start = std::chrono::steady_clock::now();
    std::string output;
    const int status = run_command(command, output);
    module.build_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (status != 0) {
      fs::remove(temp_library, error);
      throw std::runtime_error("compiling generated C++ failed (" + temp_source.string() +
                               "):\n" + command + "\n" + output);
    }
    fs::rename(temp_source, source_file, error);
    fs::rename(temp_library, library, error);
    if (error) throw std::runtime_error("cannot store " + library.string() + ": " + error.message());
  }

  void* handle = open_library(module.path_);
  const std::string symbol = entry + "_buffers";
  module.entry_ = reinterpret_cast<void (*)(void* const*)>(::dlsym(handle, symbol.c_str()));
  if (!module.entry_) throw std::runtime_error(module.path_ + " has no entry point " + symbol);
  if (!cache) fs::remove_all(directory, error);
  loaded[key + entry] = Loaded{module.entry_, module.path_};
  return module;
}

}  // namespace polyfuse::cpu_runtime
