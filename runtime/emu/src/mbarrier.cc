#include "mbarrier.h"

#include <algorithm>

#include "agents.h"

namespace polyfuse::emu {

Mbarrier* MbarrierTable::find(std::size_t offset) {
  for (Mbarrier& b : barriers_)
    if (b.offset == offset) return &b;
  return nullptr;
}

const Mbarrier* MbarrierTable::overlapping(std::size_t offset, unsigned bytes) const {
  for (const Mbarrier& b : barriers_)
    if (offset < b.offset + 8 && b.offset < offset + bytes) return &b;
  return nullptr;
}

Mbarrier* MbarrierTable::init(std::size_t offset, unsigned count, unsigned thread, std::uint16_t site,
                              const std::vector<std::uint32_t>& zero_clock) {
  Mbarrier* b = find(offset);
  if (!b) {
    if (barriers_.size() >= kMaxMbarriers) return nullptr;
    barriers_.emplace_back();
    b = &barriers_.back();
    b->slot = static_cast<unsigned>(barriers_.size() - 1);
  }
  const unsigned slot = b->slot;
  *b = Mbarrier{};
  b->offset = offset;
  b->slot = slot;
  b->expected = b->pending = count;
  b->init_thread = thread;
  b->init_site = site;
  b->released = zero_clock;
  b->completed = zero_clock;
  return b;
}

bool MbarrierTable::complete_if_done(Mbarrier& b) {
  if (b.pending != 0 || b.tx != 0) return false;
  ++b.phase;
  b.pending = b.expected;
  for (std::size_t i = 0; i < b.completed.size(); ++i) b.completed[i] = std::max(b.completed[i], b.released[i]);
  std::fill(b.released.begin(), b.released.end(), 0);
  return true;
}

}  // namespace polyfuse::emu
