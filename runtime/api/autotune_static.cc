#include "runtime/api/autotune_static.h"

#include <algorithm>
#include <cmath>
#include <regex>

namespace polyfuse::api {

std::optional<PtxasFacts> parse_ptxas_facts(const std::string& log, const std::string& kernel) {
  const std::string entry = "Compiling entry function '" + kernel + "'";
  const std::size_t start = log.find(entry);
  if (start == std::string::npos) return std::nullopt;
  std::size_t end = log.find("Compiling entry function", start + entry.size());
  const std::string block = log.substr(start, end == std::string::npos ? std::string::npos : end - start);
  PtxasFacts facts;
  std::smatch m;
  static const std::regex registers(R"(Used (\d+) registers)");
  static const std::regex spills(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex smem(R"((\d+) bytes smem)");
  if (!std::regex_search(block, m, registers)) return std::nullopt;
  facts.registers = std::stoi(m[1]);
  if (std::regex_search(block, m, spills)) {
    facts.stack_frame_bytes = std::stoi(m[1]);
    facts.spill_store_bytes = std::stoi(m[2]);
    facts.spill_load_bytes = std::stoi(m[3]);
  }
  if (std::regex_search(block, m, smem)) facts.static_shared_bytes = std::stoi(m[1]);
  return facts;
}

SmResources sm_resources(Arch arch) {
  switch (arch) {
    case Arch::sm_80: return {164 * 1024, 2048, 65536, 32, 108};
    case Arch::sm_86: return {100 * 1024, 1536, 65536, 16, 82};
    case Arch::sm_89: return {100 * 1024, 1536, 65536, 24, 128};
    case Arch::sm_90:
    case Arch::sm_90a: return {228 * 1024, 2048, 65536, 32, 132};
  }
  return {};
}

int blocks_per_sm(const SmResources& sm, int threads, int registers, int shared_bytes) {
  if (threads <= 0) return 0;
  const int warps = (threads + 31) / 32;
  const int registers_per_warp = (std::max(registers, 1) * 32 + 255) / 256 * 256;
  const int by_registers = sm.registers / (registers_per_warp * warps);
  const int by_shared = sm.shared_bytes / (shared_bytes + 1024);
  const int by_threads = sm.threads / (warps * 32);
  return std::max(0, std::min({by_registers, by_shared, by_threads, sm.max_blocks}));
}

double static_score(std::int64_t tiles, double tile_elements, int warps, int blocks, int stages, int sms) {
  if (tiles <= 0 || blocks <= 0 || sms <= 0) return 0;
  // Blocks per SM beyond the tiles there are to fill them do not run.
  const std::int64_t filled = std::min<std::int64_t>(blocks, (tiles + sms - 1) / sms);
  const double slots = static_cast<double>(sms) * static_cast<double>(filled);
  const double waves = std::ceil(static_cast<double>(tiles) / slots);
  const double wave_efficiency = static_cast<double>(tiles) / (waves * slots);
  const double ring = stages == 0 || stages >= 3 ? 1.0 : stages == 2 ? 0.9 : 0.6;
  const double hiding = std::min(1.0, static_cast<double>(warps * filled) / 8.0) * ring;
  return std::sqrt(std::max(tile_elements, 1.0)) * wave_efficiency * hiding;
}

}  // namespace polyfuse::api
