#include "runtime/cpu/cpu_module.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "runtime/cache/artifact_cache.h"
#include "runtime/cache/content_hash.h"
#include "runtime/cache/precompiled_header.h"
#include "runtime/paths/data_root.h"

namespace polyfuse::cpu_runtime {
namespace fs = std::filesystem;

// Every header the CPU code generator's files include (codegen/cpu_emit.cc, cpu_loop_nest.cc,
// cpu_contraction.cc): one precompiled header serves them all, whichever few a file names.
const char* const kPrecompiledIncludes =
    "#include <algorithm>\n#include <atomic>\n#include <cmath>\n#include <cstdint>\n#include <memory>\n"
    "#include <vector>\n#include \"polyfuse/cpu/brgemm.h\"\n#include \"polyfuse/cpu/elementwise.h\"\n"
    "#include \"polyfuse/cpu/integers.h\"\n#include \"polyfuse/cpu/memory.h\"\n#include \"polyfuse/cpu/reduce.h\"\n"
    "#include \"polyfuse/cpu/types.h\"\n";

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string quote(const std::string& word) { return cache::shell_quote(word); }

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
  const fs::path root = paths::data_root(reinterpret_cast<const void*>(&CpuModule::load), POLYFUSE_SOURCE_ROOT).path;
  const fs::path copy = root / "kernels/cpu/libpolyfuse_kernels_cpu.a";
  std::error_code ec;
  return {root / "kernels/cpu/include", fs::exists(copy, ec) ? copy : fs::path(POLYFUSE_CPU_KERNELS_LIBRARY)};
}

// kernels/cpu's public headers, hashed: what generated code includes from the project.
const std::string& kernels_headers_hash() {
  static const std::string hash = cache::hash_of_headers({(kernels_location().include / "polyfuse/cpu").string()});
  return hash;
}

// What the key depends on besides the source: the compiler and the kernels library and headers
// (their inline functions and templates are compiled into the generated library).
const std::string& toolchain_identity(const std::string& compiler) {
  static std::mutex mutex;
  static std::map<std::string, std::string> identities;
  std::lock_guard lock(mutex);
  std::string& identity = identities[compiler];
  if (identity.empty())
    identity = cache::compiler_identity(compiler) + "\nkernels " +
               cache::hex64(cache::hash64(read_file(kernels_location().library))) + "\nheaders " + kernels_headers_hash();
  return identity;
}

// Whether `source` starts with #include lines (after comments and blank lines): nothing of
// its own comes before its headers, so they may come precompiled.
bool starts_with_includes(const std::string& source) {
  std::istringstream in(source);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("#include ")) return true;
    if (!line.empty() && !line.starts_with("//")) return false;
  }
  return false;
}

// The precompiled form of kPrecompiledIncludes for builds with `flags`
// (runtime/cache/precompiled_header.h, kind "cpu"); none with POLYFUSE_CPU_PCH=0 or for a
// source that does not start with its #include lines.
cache::PrecompiledHeader precompiled_includes(const std::string& compiler, const std::string& flags,
                                              const std::string& source) {
  const char* env = std::getenv("POLYFUSE_CPU_PCH");
  if ((env && std::string(env) == "0") || !starts_with_includes(source)) return {"", "pch none"};
  return cache::precompiled_header(cache::ArtifactCache::global(), "cpu", compiler, flags, kPrecompiledIncludes,
                                   kernels_headers_hash());
}

// What the kernels archive needs from the system besides libstdc++: on x86-64, glibc's
// vector math library (kernels/cpu/src/vector_math.h).
#if defined(__x86_64__)
constexpr const char* kKernelsSystemLibraries = " -lmvec";
#else
constexpr const char* kKernelsSystemLibraries = "";
#endif

struct Loaded {
  void (*entry)(void* const*) = nullptr;
  void (*forget_constants)() = nullptr;
  std::string path;
};

void* open_library(const std::string& path) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw std::runtime_error("cannot load " + path + ": " + ::dlerror());
  return handle;  // never closed: see the header
}

// Flags every build of generated code gets, whatever `options.flags` say.
// -ffp-contract=off: an expression of the generated code means its IEEE operations one at a
// time, as kernels/cpu's Unary and Binary compute them and the reference does (a fused loop and
// the calls it replaces give the same bits; GCC contracts `a * b + c` into an FMA by default).
// -fno-tree-loop-if-convert, GCC only: GCC 12.2's if-conversion at -O3 -march=native on an
// AVX-512 machine turns a zero-padded read inside a loop (`0 <= j - 2 && j - 2 < 13 ? X[(j - 2)
// * 9 + i] : 0.0f`, a stencil's `where X = 0 outside`) into masked vector loads with wrong lanes:
// 63 of 117 elements wrong (found by scripts/random-programs, seed 1479;
// tests/programs/found/stencil_padded_rows_cpu.tc). Without if-conversion such loops stay
// scalar; every loop without a condition still vectorises.
std::vector<std::string> required_flags(const std::string& compiler) {
  const std::string identity = cache::compiler_identity(compiler);
  if (identity.find("clang") != std::string::npos) return {"-ffp-contract=off"};
  return {"-ffp-contract=off", "-fno-tree-loop-if-convert"};
}

}  // namespace

CpuModule CpuModule::load(const std::string& source, const std::string& entry,
                          const CpuBuildOptions& options) {
  const std::string compiler = compiler_of(options);
  std::string flags;
  std::vector<std::string> all_flags = options.flags;
  for (std::string& flag : required_flags(compiler)) all_flags.push_back(std::move(flag));
  for (const std::string& flag : all_flags) {
    flags += ' ';  // (not " " + quote(): GCC 12 warns falsely, -Wrestrict)
    flags += quote(flag);
  }
  const std::string key = "polyfuse cpu cache v3\n" + toolchain_identity(compiler) + "\nflags" + flags + "\n" + source;
  const KernelsLocation kernels = kernels_location();
  const std::string compile_flags = flags + " -fPIC -I" + quote(kernels.include.string());

  static std::mutex mutex;
  static std::map<std::string, Loaded> loaded;  // key + entry -> loaded library
  std::lock_guard lock(mutex);
  CpuModule module;
  const auto known = loaded.find(key + '\0' + entry);
  if (known != loaded.end()) {
    module.entry_ = known->second.entry;
    module.forget_constants_ = known->second.forget_constants;
    module.path_ = known->second.path;
    module.from_cache_ = true;
    return module;
  }

  cache::ArtifactCache& store = cache::ArtifactCache::global();
  const cache::SharedObject object = store.shared_object("cpu", key, [&](const fs::path& output) {
    // The source stays beside the entry (<hash>.cpp), to be read.
    // With the generated code's headers precompiled (kPrecompiledIncludes; not part of the key:
    // they add declarations only, and a generated file still compiles alone).
    // A damaged one that GCC rejects with an error (not just skips): built again without it.
    // (Built before the source is written: its seconds are not a window in which a concurrent
    // `polyfuse cache clear` could delete the source before its compile.)
    const cache::PrecompiledHeader pch = precompiled_includes(compiler, compile_flags, source);
    fs::path source_file = fs::path(output.string().substr(0, output.string().find(".so"))).replace_extension(".cpp");
    if (!store.config().enabled) source_file = output.string() + ".cpp";
    if (!cache::write_file_atomically(source_file, source)) throw std::runtime_error("cannot write " + source_file.string());
    const auto command_with = [&](const std::string& stub) {
      return quote(compiler) + compile_flags + " -shared" + (stub.empty() ? std::string() : " -include " + quote(stub)) +
             " " + quote(source_file.string()) + " " + quote(kernels.library.string()) + kKernelsSystemLibraries +
             " -Wl,--exclude-libs,ALL -o " + quote(output.string());
    };
    std::string command = command_with(pch.stub);
    std::string output_text;
    int status = run_command(command, output_text);
    if (status != 0 && !pch.stub.empty()) {
      command = command_with("");
      output_text.clear();
      status = run_command(command, output_text);
    }
    std::error_code ec;
    if (!store.config().enabled) fs::remove(source_file, ec);
    if (status != 0)
      throw std::runtime_error("compiling generated C++ failed (" + source_file.string() + "):\n" + command + "\n" +
                               output_text);
  });
  module.path_ = object.path.string();
  module.from_cache_ = object.outcome == cache::Outcome::hit;
  module.build_seconds_ = object.build_seconds;

  void* handle = open_library(module.path_);
  const std::string symbol = entry + "_buffers";
  module.entry_ = reinterpret_cast<void (*)(void* const*)>(::dlsym(handle, symbol.c_str()));
  if (!module.entry_) throw std::runtime_error(module.path_ + " has no entry point " + symbol);
  // (only a def with constant inputs has it)
  module.forget_constants_ = reinterpret_cast<void (*)()>(::dlsym(handle, (entry + "_forget_constants").c_str()));
  if (object.temporary) {
    std::error_code ec;
    fs::remove(object.path, ec);  // loaded; the cache is off
  }
  loaded[key + '\0' + entry] = Loaded{module.entry_, module.forget_constants_, module.path_};
  return module;
}

}  // namespace polyfuse::cpu_runtime
