#include <string>

#include "polyfuse_emu/emulator.h"

namespace polyfuse::emu {

std::string Stats::summary() const {
  return "stats: global_bytes_loaded=" + std::to_string(global_bytes_loaded) +
         " global_bytes_stored=" + std::to_string(global_bytes_stored) +
         " shared_bank_conflicts=" + std::to_string(shared_bank_conflicts);
}

std::string Stats::details() const {
  std::string text;
  const auto line = [&](const char* name, std::uint64_t v) { text += std::string(name) + "=" + std::to_string(v) + "\n"; };
  line("blocks", blocks);
  line("threads", threads);
  line("global_bytes_loaded", global_bytes_loaded);
  line("global_bytes_stored", global_bytes_stored);
  line("global_requests", global_requests);
  line("global_sectors", global_sectors);
  line("shared_bytes_loaded", shared_bytes_loaded);
  line("shared_bytes_stored", shared_bytes_stored);
  line("shared_accesses", shared_accesses);
  line("shared_wavefronts", shared_wavefronts);
  line("shared_bank_conflicts", shared_bank_conflicts);
  line("warp_collectives", warp_collectives);
  line("barriers", barriers);
  line("async_copies", async_copies);
  line("tma_loads", tma_loads);
  line("tma_stores", tma_stores);
  line("tma_bytes", tma_bytes);
  line("wgmma_instructions", wgmma_instructions);
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
