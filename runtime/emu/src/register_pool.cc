#include "register_pool.h"

#include <algorithm>

namespace polyfuse::emu {

void RegisterPool::begin_launch(unsigned threads) {
  threads_ = threads;
  entry_count_ = std::min(255u, kBlockRegisters / std::max(threads, 1u)) / 8 * 8;
  changes_.assign((threads + 127) / 128, {});
  executed_.assign(threads, 0);
}

void RegisterPool::begin_block() {
  for (auto& c : changes_) c.clear();
  std::fill(executed_.begin(), executed_.end(), 0u);
}

std::uint64_t RegisterPool::block_registers(unsigned unknown) const {
  std::uint64_t total = 0;
  for (unsigned g = 0; g < changes_.size(); ++g) {
    const unsigned threads = std::min(128u, threads_ - 128 * g);
    total += static_cast<std::uint64_t>(changes_[g].empty() ? unknown : changes_[g].back().count) * threads;
  }
  return total;
}

}  // namespace polyfuse::emu
