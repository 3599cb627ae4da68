#include "access_tracker.h"

#include <algorithm>
#include <cstdio>

#include "host_hooks.h"

namespace polyfuse::emu {

namespace {
std::string hex(std::uintptr_t v) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
  return text;
}
}  // namespace

BufferRegistry& buffer_registry() {
  static BufferRegistry registry;
  return registry;
}

void BufferRegistry::add(const void* data, std::size_t bytes, std::string name) {
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t end = begin + bytes;
  for (const auto& [start, b] : buffers_)
    if (begin < b.end && start < end)
      throw EmulationError("polyfuse emu: buffer '" + name + "' [" + hex(begin) + ", " + hex(end) +
                           ") overlaps registered buffer '" + b.name + "'");
  buffers_[begin] = RegisteredBuffer{begin, end, std::move(name), 0, 0};
  last_ = nullptr;
}

void BufferRegistry::remove(const void* data) {
  buffers_.erase(reinterpret_cast<std::uintptr_t>(data));
  last_ = nullptr;
}

RegisteredBuffer* BufferRegistry::find(std::uintptr_t address, std::size_t bytes) {
  if (last_ && address >= last_->begin && address + bytes <= last_->end) return last_;
  auto it = buffers_.upper_bound(address);
  if (it == buffers_.begin()) return nullptr;
  --it;
  if (address + bytes > it->second.end) return nullptr;
  last_ = &it->second;
  return last_;
}

std::string BufferRegistry::describe_miss(std::uintptr_t address, std::size_t bytes) const {
  if (buffers_.empty()) return "no buffer is registered";
  auto after = buffers_.upper_bound(address);
  std::string text;
  if (after != buffers_.begin()) {
    const RegisteredBuffer& b = std::prev(after)->second;
    if (address < b.end)
      text = "overruns buffer '" + b.name + "' [" + hex(b.begin) + ", " + hex(b.end) + ") by " +
             std::to_string(address + bytes - b.end) + " bytes";
    else
      text = "is " + std::to_string(address - b.end) + " bytes past the end of buffer '" + b.name + "' [" +
             hex(b.begin) + ", " + hex(b.end) + ")";
  }
  if (after != buffers_.end()) {
    if (!text.empty()) text += "; ";
    text += "is " + std::to_string(after->second.begin - address) + " bytes before buffer '" +
            after->second.name + "'";
  }
  return "not inside any registered buffer: " + text;
}

void BufferRegistry::reset_counters() {
  for (auto& [start, b] : buffers_) b.bytes_loaded = b.bytes_stored = 0;
}

void BufferRegistry::collect(Stats& stats) const {
  for (const auto& [start, b] : buffers_)
    if (b.bytes_loaded || b.bytes_stored) stats.buffers.push_back(BufferStats{b.name, b.bytes_loaded, b.bytes_stored});
}

void WarpAccessLog::record(unsigned sequence, const AccessEntry& entry) {
  if (sequence >= requests_.size()) requests_.resize(sequence + 1);
  requests_[sequence].push_back(entry);
  used_ = std::max(used_, sequence + 1);
}

unsigned shared_wavefronts(const AccessEntry* entries, unsigned count, std::uintptr_t shared_base, unsigned& phases) {
  unsigned widest = 0;
  for (unsigned i = 0; i < count; ++i) widest = std::max(widest, entries[i].bytes);
  const unsigned lanes_per_phase = widest <= 4 ? 32 : (widest <= 8 ? 16 : 8);
  unsigned total = 0;
  phases = 0;
  std::vector<std::uintptr_t> words;
  for (unsigned phase = 0; phase < 32 / lanes_per_phase; ++phase) {
    words.clear();
    for (unsigned i = 0; i < count; ++i) {
      if (entries[i].lane / lanes_per_phase != phase) continue;
      const std::uintptr_t first = (entries[i].address - shared_base) / 4;
      const std::uintptr_t last = (entries[i].address - shared_base + entries[i].bytes - 1) / 4;
      for (std::uintptr_t w = first; w <= last; ++w) words.push_back(w);
    }
    if (words.empty()) continue;
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    unsigned per_bank[32] = {};
    unsigned worst = 0;
    for (std::uintptr_t w : words) worst = std::max(worst, ++per_bank[w % 32]);
    total += worst;
    ++phases;
  }
  return total;
}

unsigned global_sectors(const AccessEntry* entries, unsigned count) {
  std::vector<std::uintptr_t> sectors;
  for (unsigned i = 0; i < count; ++i)
    for (std::uintptr_t s = entries[i].address / 32; s <= (entries[i].address + entries[i].bytes - 1) / 32; ++s)
      sectors.push_back(s);
  std::sort(sectors.begin(), sectors.end());
  return static_cast<unsigned>(std::unique(sectors.begin(), sectors.end()) - sectors.begin());
}

void WarpAccessLog::flush(Stats& stats, std::uintptr_t shared_base) {
  AccessEntry part[64];
  for (unsigned r = 0; r < used_; ++r) {
    std::vector<AccessEntry>& request = requests_[r];
    // Lanes that diverged may have different kinds of access at the same position: count
    // each (space, direction) as its own request.
    for (unsigned kind = 0; kind < 4; ++kind) {
      unsigned n = 0;
      for (const AccessEntry& e : request)
        if (e.space * 2u + e.direction == kind && e.bytes > 0 && n < 64) part[n++] = e;
      if (n == 0) continue;
      if (kind / 2 == pf_host::shared_space) {
        unsigned phases = 0;
        const unsigned wavefronts = shared_wavefronts(part, n, shared_base, phases);
        stats.shared_accesses += 1;
        stats.shared_wavefronts += wavefronts;
        stats.shared_bank_conflicts += wavefronts - phases;
      } else {
        stats.global_requests += 1;
        stats.global_sectors += global_sectors(part, n);
      }
    }
    request.clear();
  }
  used_ = 0;
}

}  // namespace polyfuse::emu
