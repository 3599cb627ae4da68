#include "sync_clocks.h"

#include <algorithm>

#include "agents.h"

namespace polyfuse::emu {

void SyncClocks::begin_launch(unsigned threads, unsigned agents) {
  threads_ = threads;
  columns_ = threads + agents;
  clock_.assign(static_cast<std::size_t>(threads_) * columns_, 0);
}

void SyncClocks::begin_block() {
  std::fill(clock_.begin(), clock_.end(), 0);
  any_ = false;
}

bool SyncClocks::ordered(std::uint32_t serial, unsigned id, unsigned thread) const {
  if (thread >= threads_) return false;
  if (agent_kind(id) == AgentKind::wgmma) {  // every warp of the warpgroup retired it
    const unsigned first = 4 * agent_index(id);
    for (unsigned w = first; w < first + 4; ++w) {
      const unsigned c = column(wgmma_retirement(w));
      if (c >= columns_ || !(serial < at(thread, c))) return false;
    }
    return true;
  }
  const unsigned c = column(id);
  return c < columns_ && serial < at(thread, c);
}

void SyncClocks::release(unsigned t, std::uint32_t r, std::uint32_t block_sync, std::uint32_t warp_sync,
                         std::vector<std::uint32_t>& into) const {
  const std::uint32_t* mine = clock_.data() + static_cast<std::size_t>(t) * columns_;
  const unsigned warp_first = t / 32 * 32, warp_last = std::min(warp_first + 32, threads_);
  for (unsigned c = 0; c < columns_; ++c) {
    std::uint32_t v = mine[c];
    if (c < threads_) {
      v = std::max(v, block_sync);
      if (c >= warp_first && c < warp_last) v = std::max(v, warp_sync);
      if (c == t) v = std::max(v, r);
    }
    into[c] = std::max(into[c], v);
  }
}

void SyncClocks::release_agent(unsigned id, std::uint32_t r, std::vector<std::uint32_t>& into) const {
  const unsigned c = column(id);
  if (c < columns_) into[c] = std::max(into[c], r);
}

void SyncClocks::acquire(unsigned t, const std::vector<std::uint32_t>& from) {
  any_ = true;
  std::uint32_t* mine = clock_.data() + static_cast<std::size_t>(t) * columns_;
  for (unsigned c = 0; c < columns_; ++c) mine[c] = std::max(mine[c], from[c]);
}

void SyncClocks::observe(unsigned t, unsigned id, std::uint32_t r) {
  const unsigned c = column(id);
  if (t < threads_ && c < columns_) {
    std::uint32_t& v = clock_[static_cast<std::size_t>(t) * columns_ + c];
    v = std::max(v, r);
    any_ = true;
  }
}

void SyncClocks::merge() {
  if (!any_ || threads_ == 0) return;
  std::vector<std::uint32_t> all(clock_.begin(), clock_.begin() + columns_);
  for (unsigned t = 1; t < threads_; ++t)
    for (unsigned c = 0; c < columns_; ++c) all[c] = std::max(all[c], at(t, c));
  for (unsigned t = 0; t < threads_; ++t) std::copy(all.begin(), all.end(), clock_.begin() + static_cast<std::ptrdiff_t>(t) * columns_);
}

}  // namespace polyfuse::emu
