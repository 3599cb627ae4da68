#include "polyfuse_emu/module.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>

#include "polyfuse/cuda_helpers_embedded.h"
#include "precompiled_header.h"
#include "runtime/cache/artifact_cache.h"
#include "runtime/cache/content_hash.h"
#include "runtime/cache/precompiled_header.h"
#include "runtime/paths/data_root.h"

namespace polyfuse::emu {
namespace fs = std::filesystem;

struct Module::Handle {
  void* dl = nullptr;
  ~Handle() {
    if (dl) dlclose(dl);
  }
};

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string env_or(const char* name, std::string fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

// Path of libpolyfuse_emu.so itself (the built object links against it).
std::string own_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&find_kernel_names), &info) && info.dli_fname) return info.dli_fname;
  return {};
}

// Whether `compiler` takes -ftrivial-auto-var-init=pattern (GCC 12 and clang 8 on), asked once.
bool takes_pattern_init(const std::string& compiler) {
  static std::mutex mutex;
  static std::map<std::string, bool> known;
  std::lock_guard<std::mutex> lock(mutex);
  const auto found = known.find(compiler);
  if (found != known.end()) return found->second;
  const std::string command =
      cache::shell_quote(compiler) + " -ftrivial-auto-var-init=pattern -x c++ -fsyntax-only /dev/null > /dev/null 2>&1";
  return known[compiler] = std::system(command.c_str()) == 0;
}

// Where the emulation headers and the kernels/cuda helpers are (runtime/paths).
paths::DataRoot data_root() {
  return paths::data_root(reinterpret_cast<const void*>(&find_kernel_names), POLYFUSE_SOURCE_ROOT);
}

// The artefact cache the builds go to (runtime/cache, kind "emu"): under the options' or
// $POLYFUSE_EMU_CACHE_DIR's folder, else the build tree's emu-cache (never from a
// relocated copy), else the user's cache. POLYFUSE_DISABLE_CACHE=1 builds every time.
cache::ArtifactCache build_cache(const BuildOptions& options) {
  cache::CacheConfig config = cache::cache_config_from_environment();
  if (!options.cache_dir.empty()) {
    config.root = options.cache_dir;
  } else if (const char* dir = std::getenv("POLYFUSE_EMU_CACHE_DIR"); dir && *dir) {
    config.root = dir;
  } else if (data_root().origin == paths::DataRootOrigin::source_tree) {
    std::error_code ec;
    const fs::path build_tree = POLYFUSE_EMU_BUILD_CACHE_DIR;
    fs::create_directories(build_tree, ec);
    if (!ec && access(build_tree.c_str(), W_OK) == 0) config.root = build_tree;
  }
  return cache::ArtifactCache(config);
}

std::string quote(const std::string& s) { return cache::shell_quote(s); }

}  // namespace

std::vector<std::string> find_kernel_names(std::string_view source) {
  // __launch_bounds__(...) may stand before or after `void` (the code generator writes
  // `__global__ void __launch_bounds__(256) name(`).
  static const std::regex kernel(
      R"(__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?(\w+)\s*\()");
  std::vector<std::string> names;
  const std::string text(source);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kernel); it != std::sregex_iterator(); ++it)
    if (std::find(names.begin(), names.end(), (*it)[1].str()) == names.end()) names.push_back((*it)[1].str());
  return names;
}

Module Module::compile_file(const std::string& path, const BuildOptions& options, std::vector<std::string> kernel_names) {
  if (!fs::exists(path)) throw EmulationError("polyfuse emu: no such kernel source: " + path);
  return compile(read_file(path), options, std::move(kernel_names));
}

Module Module::compile(std::string_view source, const BuildOptions& options, std::vector<std::string> kernel_names) {
  if (kernel_names.empty()) kernel_names = find_kernel_names(source);
  if (kernel_names.empty()) throw EmulationError("polyfuse emu: the source defines no __global__ kernel");

  std::string text(source);
  text += "\n// ---- polyfuse emu entry points ----\n";
  for (const std::string& k : kernel_names) {
    text += "extern \"C\" void polyfuse_emu_entry__" + k + "(void* const* params) { polyfuse_emu_invoke(" + k +
            ", params); }\n";
    text += "extern \"C\" const char* polyfuse_emu_signature__" + k + "() { return polyfuse_emu_signature(" + k + "); }\n";
  }

  const std::string compiler = !options.compiler.empty() ? options.compiler
                                                         : env_or("POLYFUSE_EMU_CXX", env_or("CXX", "c++"));
  const fs::path root = data_root().path;
  const std::string emu_include = env_or("POLYFUSE_EMU_INCLUDE_DIR", (root / "runtime/emu/include").string());
  const std::string helpers_include = env_or("POLYFUSE_CUDA_HELPERS_DIR", (root / "kernels/cuda").string());
  // -g1: line tables, so that the emulator's errors name the kernel's source lines.
  std::string flags = "-std=c++20 -O2 -g1 -shared -fPIC -w -I" + quote(emu_include) + " -I" + quote(helpers_include);
  if (options.poison_registers && env_or("POLYFUSE_EMU_POISON_REGISTERS", "1") != "0" && takes_pattern_init(compiler))
    flags += " -ftrivial-auto-var-init=pattern";
  for (const std::string& f : options.extra_flags) flags += " " + quote(f);
  // POLYFUSE_EMU_CXXFLAGS: more flags for every build, e.g. -fsanitize=address (the
  // sanitizer stage of the tests builds the kernels it runs with it).
  if (const char* more = std::getenv("POLYFUSE_EMU_CXXFLAGS"); more && *more) flags += std::string(" ") + more;
  cache::ArtifactCache store = build_cache(options);
  // cuda_emulation.h is force-included: precompiled (precompiled_header.h) when it can be.
  const PrecompiledHeader pch =
      precompiled_emulation_header(store, compiler, flags, emu_include, helpers_include, options.precompiled_header);
  flags += " -include " + quote(pch.include);

  // The key: what the object is built from and how (the headers by content).
  std::string key = "polyfuse emu cache v2\n" + cache::compiler_identity(compiler) + "\nflags " + flags + "\nlinks " +
                    own_library() + "\nheaders";
  std::string headers;
  for (const char* header : {"cuda_emulation.h", "cuda_types.h", "fp16.h"})
    headers += read_file(fs::path(emu_include) / "polyfuse_emu" / header);
  headers += polyfuse::cuda_helpers::amalgamation();
  key += " " + cache::hex64(cache::hash64(headers)) + "\n" + pch.key + "\n" + text;

  const auto build = [&](const fs::path& output) {
    // The source stays beside the entry (<hash>.cu): errors name its lines.
    fs::path src = fs::path(output.string().substr(0, output.string().find(".so"))).replace_extension(".cu");
    if (!store.config().enabled) src = output.string() + ".cu";
    const fs::path log = output.string() + ".log";
    if (!cache::write_file_atomically(src, text)) throw EmulationError("polyfuse emu: cannot write " + src.string());
    const std::string command = quote(compiler) + " " + flags + " -x c++ " + quote(src.string()) + " -x none " +
                                quote(own_library()) + " -Wl,-rpath," + quote(fs::path(own_library()).parent_path().string()) +
                                " -o " + quote(output.string()) + " > " + quote(log.string()) + " 2>&1";
    const int status = std::system(command.c_str());
    const std::string messages = read_file(log);
    std::error_code ec;
    fs::remove(log, ec);
    if (status != 0)
      throw EmulationError("polyfuse emu: building " + src.string() + " failed:\n" + messages + "command: " + command);
    if (!store.config().enabled) fs::remove(src, ec);
  };
  cache::SharedObject object;
  try {
    object = store.shared_object("emu", key, build);
  } catch (const EmulationError&) {
    // A precompiled header GCC could not use after all (damaged since it was checked):
    // the build without it says whether the kernel is at fault.
    if (pch.key == "pch none") throw;
    BuildOptions without = options;
    without.precompiled_header = false;
    return compile(source, without, std::move(kernel_names));
  }
  Module m;
  m.from_cache_ = object.outcome == cache::Outcome::hit;
  const fs::path so = object.path;
  m.handle_ = std::make_shared<Handle>();
  m.handle_->dl = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!m.handle_->dl) throw EmulationError(std::string("polyfuse emu: dlopen failed: ") + dlerror());
  if (object.temporary) {
    std::error_code ec;
    fs::remove(so, ec);  // loaded; the cache is off
  }
  m.path_ = so.string();
  m.kernels_ = std::move(kernel_names);
  return m;
}

void* Module::symbol(const std::string& name) const {
  void* s = dlsym(handle_->dl, name.c_str());
  if (!s) throw EmulationError("polyfuse emu: " + path_ + " has no symbol " + name);
  return s;
}

std::string Module::signature(std::string_view kernel) const {
  auto fn = reinterpret_cast<const char* (*)()>(symbol("polyfuse_emu_signature__" + std::string(kernel)));
  return fn();
}

Stats Module::launch_raw(std::string_view kernel, dim3 grid, dim3 block, std::size_t dynamic_shared_bytes,
                         void* const* params, dim3 cluster) const {
  auto entry = reinterpret_cast<void (*)(void* const*)>(symbol("polyfuse_emu_entry__" + std::string(kernel)));
  return launch_body(std::string(kernel), grid, block, dynamic_shared_bytes, [&] { entry(params); }, cluster);
}

Stats Module::launch(std::string_view kernel, dim3 grid, dim3 block, std::size_t dynamic_shared_bytes,
                     const std::vector<KernelArg>& args, dim3 cluster) const {
  const std::string expected = signature(kernel);
  std::string given;
  for (const KernelArg& a : args) given += a.kind;
  if (expected != given)
    throw EmulationError("polyfuse emu: kernel '" + std::string(kernel) + "' takes parameters '" + expected +
                         "' but was given '" + given + "'");
  std::vector<KernelArg> copies = args;
  std::vector<void*> params;
  for (KernelArg& a : copies) params.push_back(a.kind == 'm' ? const_cast<void*>(a.value.p) : &a.value);
  return launch_raw(kernel, grid, block, dynamic_shared_bytes, params.data(), cluster);
}

}  // namespace polyfuse::emu
