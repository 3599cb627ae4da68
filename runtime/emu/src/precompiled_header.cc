#include "precompiled_header.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "runtime/cache/content_hash.h"

namespace polyfuse::emu {
namespace {
namespace fs = std::filesystem;

const char* const kHeader = "polyfuse_emu/cuda_emulation.h";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every header the emulation header can reach in the project (the standard library's are
// the compiler's, named by its identity): the emulation headers and the kernels/cuda ones.
std::string project_headers(const std::string& emu_include, const std::string& helpers_include) {
  std::map<fs::path, std::string> files;
  for (const fs::path& dir : {fs::path(emu_include) / "polyfuse_emu", fs::path(helpers_include)}) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file(ec)) files[it->path()] = read_file(it->path());
  }
  std::string all;
  for (const auto& file : files) all += file.first.filename().string() + "\n" + file.second + "\n";
  return all;
}

// Puts `target`'s bytes at `link` (a hard link, else a copy), atomically. Where `link` already
// is `target` (a hard link placed by an earlier process) nothing is done: rename(2) between
// two links of one file does nothing and would leave the temporary behind.
bool place(const fs::path& target, const fs::path& link) {
  std::error_code ec;
  if (fs::equivalent(target, link, ec)) return true;
  const fs::path temporary = link.string() + ".tmp." + std::to_string(getpid());
  fs::remove(temporary, ec);
  fs::create_hard_link(target, temporary, ec);
  if (ec) fs::copy_file(target, temporary, fs::copy_options::overwrite_existing, ec);
  if (!ec) fs::rename(temporary, link, ec);
  std::error_code ignored;
  fs::remove(temporary, ignored);  // (still there when the rename failed or did nothing)
  return !ec;
}

PrecompiledHeader build(cache::ArtifactCache& store, const std::string& compiler, const std::string& flags,
                        const std::string& headers_hash) {
  const std::string identity = cache::compiler_identity(compiler);
  if (!store.config().enabled || identity.find("clang") != std::string::npos) return {};
  const std::string key = "polyfuse emu pch v1\n" + identity + "\nflags " + flags + "\nheaders " + headers_hash;
  const fs::path stub = store.entry_path("emu", key).replace_extension(".h");
  std::error_code ec;
  fs::create_directories(stub.parent_path(), ec);
  if (read_file(stub) != std::string("#include \"") + kHeader + "\"\n" &&
      !cache::write_file_atomically(stub, std::string("#include \"") + kHeader + "\"\n"))
    return {};
  const cache::SharedObject pch = store.shared_object("emu", key, [&](const fs::path& output) {
    const fs::path log = output.string() + ".log";
    const std::string command = shell_quote(compiler) + " " + flags + " -x c++-header " + shell_quote(stub.string()) +
                                " -o " + shell_quote(output.string()) + " > " + shell_quote(log.string()) + " 2>&1";
    const int status = std::system(command.c_str());
    std::error_code ignored;
    fs::remove(log, ignored);
    // GCC's precompiled headers start with "gpch"; anything else is not one GCC takes.
    if (status != 0 || read_file(output).compare(0, 4, "gpch") != 0)
      throw std::runtime_error("no precompiled header");
  });
  if (pch.temporary || !place(pch.path, stub.string() + ".gch")) return {};
  return PrecompiledHeader{stub.string(), "pch " + cache::hex64(cache::hash64(key))};
}

}  // namespace

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

PrecompiledHeader precompiled_emulation_header(cache::ArtifactCache& store, const std::string& compiler,
                                               const std::string& flags, const std::string& emu_include,
                                               const std::string& helpers_include, bool wanted) {
  const PrecompiledHeader none{kHeader, "pch none"};
  const char* env = std::getenv("POLYFUSE_EMU_PCH");
  if (!wanted || (env && std::string(env) == "0")) return none;
  static std::mutex mutex;
  static std::map<std::string, PrecompiledHeader> known;  // by everything that made it
  const std::string headers_hash = cache::hex64(cache::hash64(project_headers(emu_include, helpers_include)));
  const std::string id = store.config().root.string() + "\n" + compiler + "\n" + flags + "\n" + headers_hash;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = known.find(id);
  // A stub evicted since (the cache's size bound) is looked up again.
  std::error_code ec;
  if (it == known.end() || (!it->second.include.empty() && !fs::exists(it->second.include, ec))) {
    PrecompiledHeader found;
    try {
      found = build(store, compiler, flags, headers_hash);
    } catch (const std::exception&) {
      found = {};
    }
    it = known.insert_or_assign(id, found).first;
  }
  return it->second.include.empty() ? none : it->second;
}

}  // namespace polyfuse::emu
