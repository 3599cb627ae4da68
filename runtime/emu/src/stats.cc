#include <string>

#include "polyfuse_emu/emulator.h"

namespace polyfuse::emu {

std::string Stats::summary() const {
  return "stats: global_bytes_loaded=" + std::to_string(global_bytes_loaded) +
         " global_bytes_stored=" + std::to_string(global_bytes_stored) +
         " shared_bank_conflicts=" + std::to_string(shared_bank_conflicts);
}

std::vector<std::pair<std::string, std::uint64_t>> Stats::counters() const {
  return {{"blocks", blocks},
          {"threads", threads},
          {"global_bytes_loaded", global_bytes_loaded},
          {"global_bytes_stored", global_bytes_stored},
          {"global_requests", global_requests},
          {"global_sectors", global_sectors},
          {"shared_bytes_loaded", shared_bytes_loaded},
          {"shared_bytes_stored", shared_bytes_stored},
          {"shared_accesses", shared_accesses},
          {"shared_wavefronts", shared_wavefronts},
          {"shared_bank_conflicts", shared_bank_conflicts},
          {"warp_collectives", warp_collectives},
          {"barriers", barriers},
          {"async_copies", async_copies},
          {"tma_loads", tma_loads},
          {"tma_stores", tma_stores},
          {"tma_bytes", tma_bytes},
          {"wgmma_instructions", wgmma_instructions}};
}

std::string Stats::details() const {
  std::string text;
  for (const auto& [name, value] : counters()) text += name + "=" + std::to_string(value) + "\n";
  for (const BufferStats& b : buffers)
    text += "buffer " + b.name + ": loaded=" + std::to_string(b.bytes_loaded) + " stored=" + std::to_string(b.bytes_stored) + "\n";
  return text;
}

const BufferStats* Stats::buffer(std::string_view name) const {
  for (const BufferStats& b : buffers)
    if (b.name == name) return &b;
  return nullptr;
}

}  // namespace polyfuse::emu
