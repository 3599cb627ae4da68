#include "register_pool.h"

#include <algorithm>

namespace polyfuse::emu {

void RegisterPool::begin_launch(unsigned threads, unsigned block_threads) {
  threads_ = threads;
  block_threads_ = block_threads;
  entry_count_ = std::min(255u, kBlockRegisters / std::max(block_threads, 1u)) / 8 * 8;
  changes_.assign((threads + 127) / 128, {});
  executed_.assign(threads, 0);
}

void RegisterPool::begin_block() {
  for (auto& c : changes_) c.clear();
  std::fill(executed_.begin(), executed_.end(), 0u);
}

std::uint64_t RegisterPool::block_registers(unsigned unknown, unsigned rank) const {
  std::uint64_t total = 0;
  const unsigned first = rank * block_threads_, last = std::min(threads_, first + block_threads_);
  for (unsigned g = first / 128; g < changes_.size() && 128 * g < last; ++g) {
    const unsigned threads = std::min(last, 128 * g + 128) - std::max(first, 128 * g);  // of this block
    total += static_cast<std::uint64_t>(changes_[g].empty() ? unknown : changes_[g].back().count) * threads;
  }
  return total;
}

}  // namespace polyfuse::emu
