#include "access_sites.h"

#include <dlfcn.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>

namespace polyfuse::emu {

void AccessSites::clear() {
  pcs_.assign(1, nullptr);
  async_.assign(1, false);
  index_.clear();
  for (CacheEntry& e : cache_) e = CacheEntry{};
}

std::uint16_t AccessSites::intern(const void* pc, bool async) {
  const std::uintptr_t key = 2 * reinterpret_cast<std::uintptr_t>(pc) + (async ? 1 : 0);
  CacheEntry& e = cache_[(key >> 1) & 255];
  if (e.key == key) return e.site;
  std::uint16_t site = 0;
  if (auto it = index_.find(key); it != index_.end()) {
    site = it->second;
  } else if (pcs_.size() < 0xffff) {
    site = static_cast<std::uint16_t>(pcs_.size());
    pcs_.push_back(pc);
    async_.push_back(async);
    index_.emplace(key, site);
  }
  e = CacheEntry{key, site};
  return site;
}

std::string AccessSites::describe(std::uint16_t site) const {
  return site && site < pcs_.size() ? describe_code_address(pcs_[site]) : std::string();
}

namespace {

// "void* pf::helper<3>(int) const" → "pf::helper".
std::string short_function_name(const std::string& full) {
  std::string text;
  int depth = 0;
  for (char c : full) {
    if (c == '<' || c == '(') ++depth;
    else if (c == '>' || c == ')') depth -= depth > 0;
    else if (depth == 0) text += c;
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  if (const std::size_t space = text.rfind(' '); space != std::string::npos) text = text.substr(space + 1);
  if (text.size() > 6 && text.compare(text.size() - 6, 6, " const") == 0) text.resize(text.size() - 6);
  return text;
}

bool is_position_independent(const char* object) {
  std::ifstream in(object, std::ios::binary);
  unsigned char header[18] = {};
  in.read(reinterpret_cast<char*>(header), sizeof header);
  return in && header[16] == 3;  // e_type ET_DYN (little-endian)
}

std::string run_addr2line(const char* object, std::uintptr_t address) {
  char command[4200];
  std::snprintf(command, sizeof command, "addr2line -C -f -i -e '%s' 0x%llx 2>/dev/null", object,
                static_cast<unsigned long long>(address));
  std::FILE* pipe = popen(command, "r");
  if (!pipe) return {};
  std::vector<std::string> lines;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) {
    std::string line(buffer);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    lines.push_back(line);
  }
  pclose(pipe);
  // Pairs (function, file:line), innermost inlined call first, the kernel last.
  if (lines.size() < 2 || lines[1].rfind("??", 0) == 0) return {};
  const std::size_t n = lines.size() / 2;
  std::string text = " at " + lines[2 * n - 1];
  if (const std::size_t paren = text.find(" (discriminator"); paren != std::string::npos) text.resize(paren);
  text += " in " + short_function_name(lines[2 * n - 2]);
  if (n > 1) {
    text += " (";
    for (std::size_t i = n - 1; i-- > 0;) text += short_function_name(lines[2 * i]) + (i ? " → " : ")");
  }
  return text;
}

}  // namespace

std::string describe_code_address(const void* pc) {
  if (!pc) return {};
  static std::mutex mutex;
  static std::map<const void*, std::string> cache;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(pc); it != cache.end()) return it->second;
  std::string text;
  Dl_info info{};
  if (dladdr(pc, &info) && info.dli_fname) {
    const auto call = reinterpret_cast<std::uintptr_t>(pc) - 1;  // inside the call instruction
    const std::uintptr_t offset = call - reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    text = run_addr2line(info.dli_fname, is_position_independent(info.dli_fname) ? offset : call);
    if (text.empty()) {
      char where[64];
      std::snprintf(where, sizeof where, "+0x%llx", static_cast<unsigned long long>(offset));
      text = std::string(" at ") + info.dli_fname + where + " (no line information)";
    }
  }
  cache.emplace(pc, text);
  return text;
}

}  // namespace polyfuse::emu
