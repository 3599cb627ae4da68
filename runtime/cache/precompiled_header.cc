#include "runtime/cache/precompiled_header.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "runtime/cache/content_hash.h"

namespace polyfuse::cache {
namespace {
namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
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

PrecompiledHeader build(ArtifactCache& store, std::string_view kind, const std::string& compiler,
                        const std::string& flags, const std::string& include_lines, const std::string& headers_hash) {
  const std::string identity = compiler_identity(compiler);
  if (!store.config().enabled || identity.find("clang") != std::string::npos) return {};
  const std::string key = "polyfuse " + std::string(kind) + " pch v2\n" + identity + "\nflags " + flags +
                          "\nheaders " + headers_hash + "\n" + include_lines;
  const fs::path stub = store.entry_path(kind, key).replace_extension(".h");
  std::error_code ec;
  fs::create_directories(stub.parent_path(), ec);
  if (read_file(stub) != include_lines && !write_file_atomically(stub, include_lines)) return {};
  const SharedObject pch = store.shared_object(kind, key, [&](const fs::path& output) {
    const fs::path log = output.string() + ".log";
    const std::string command = shell_quote(compiler) + " " + flags + " -x c++-header " + shell_quote(stub.string()) +
                                " -o " + shell_quote(output.string()) + " > " + shell_quote(log.string()) + " 2>&1";
    const int status = std::system(command.c_str());
    std::error_code ignored;
    fs::remove(log, ignored);
    // GCC's precompiled headers start with "gpch"; anything else is not one GCC takes.
    if (status != 0 || read_file(output).compare(0, 4, "gpch") != 0) throw std::runtime_error("no precompiled header");
  });
  if (pch.temporary || !place(pch.path, stub.string() + ".gch")) return {};
  return PrecompiledHeader{stub.string(), "pch " + hex64(hash64(key))};
}

}  // namespace

PrecompiledHeader precompiled_header(ArtifactCache& store, std::string_view kind, const std::string& compiler,
                                     const std::string& flags, const std::string& include_lines,
                                     const std::string& headers_hash) {
  static std::mutex mutex;
  static std::map<std::string, PrecompiledHeader> known;  // by everything that made it
  const std::string id = store.config().root.string() + "\n" + std::string(kind) + "\n" + compiler + "\n" + flags +
                         "\n" + headers_hash + "\n" + include_lines;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = known.find(id);
  // A stub evicted since (the cache's size bound) is looked up again.
  std::error_code ec;
  if (it == known.end() || (!it->second.stub.empty() && !fs::exists(it->second.stub, ec))) {
    PrecompiledHeader found;
    try {
      found = build(store, kind, compiler, flags, include_lines, headers_hash);
    } catch (const std::exception&) {
      found = {};
    }
    it = known.insert_or_assign(id, found).first;
  }
  return it->second.stub.empty() ? PrecompiledHeader{"", "pch none"} : it->second;
}

std::string hash_of_headers(const std::vector<std::string>& dirs) {
  std::string all;
  for (const std::string& dir : dirs) {
    std::map<fs::path, std::string> files;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file(ec)) files[it->path()] = read_file(it->path());
    for (const auto& file : files) all += file.first.filename().string() + "\n" + file.second + "\n";
  }
  return hex64(hash64(all));
}

std::string shell_quote(std::string_view word) {
  std::string q = "'";
  for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace polyfuse::cache
