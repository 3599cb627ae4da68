#include "async_copies.h"

#include <cstring>

namespace polyfuse::emu {

void AsyncCopies::begin_launch(std::size_t shared_bytes, unsigned threads) {
  copies_.clear();
  free_.clear();
  unlanded_.clear();
  unlanded_at_.clear();
  owner_.assign(shared_bytes, 0);
  threads_.assign(threads, ThreadGroups{});
  active_ = 0;
  pending_tx_ = 0;
}

void AsyncCopies::begin_block(unsigned char* shared) {
  shared_ = shared;
  for (unsigned slot = 0; slot < copies_.size(); ++slot)
    if (copies_[slot].bytes) remove(slot);
  for (ThreadGroups& t : threads_) t = ThreadGroups{};
}

const AsyncCopy* AsyncCopies::pending_at(std::size_t offset, unsigned bytes) const {
  if (active_ == 0) return nullptr;
  for (std::size_t i = offset; i < offset + bytes; ++i)
    if (owner_[i]) return &copies_[owner_[i] - 1];
  return nullptr;
}

void AsyncCopies::issue(const AsyncCopy& copy) {
  unsigned slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    slot = static_cast<unsigned>(copies_.size());
    copies_.emplace_back();
    unlanded_at_.push_back(0);
  }
  copies_[slot] = copy;
  copies_[slot].group = 0;
  copies_[slot].landed = false;
  for (std::size_t i = copy.offset; i < copy.offset + copy.bytes; ++i) owner_[i] = slot + 1;
  unlanded_at_[slot] = static_cast<unsigned>(unlanded_.size());
  unlanded_.push_back(slot);
  if (copy.trigger == Trigger::async_group) threads_[copy.thread].slots.push_back(slot);
  else ++pending_tx_;
  ++active_;
}

void AsyncCopies::commit(unsigned thread) {
  ThreadGroups& t = threads_[thread];
  ++t.committed;
  for (unsigned slot : t.slots)
    if (copies_[slot].group == 0) copies_[slot].group = t.committed;
}

void AsyncCopies::land(AsyncCopy& c) {
  if (c.landed) return;
  unsigned char* dst = shared_ + c.offset;
  std::memset(dst, 0, c.dst_skip);
  if (c.src_bytes) std::memcpy(dst + c.dst_skip, c.src, c.src_bytes);
  std::memset(dst + c.dst_skip + c.src_bytes, 0, c.bytes - c.dst_skip - c.src_bytes);
  c.landed = true;
  const unsigned slot = static_cast<unsigned>(&c - copies_.data());
  const unsigned at = unlanded_at_[slot];
  unlanded_[at] = unlanded_.back();
  unlanded_at_[unlanded_[at]] = at;
  unlanded_.pop_back();
}

void AsyncCopies::land_early(std::uint64_t choice) {
  if (!unlanded_.empty()) land(copies_[unlanded_[choice % unlanded_.size()]]);
}

const AsyncCopy* AsyncCopies::pending_tx_at(std::uint64_t choice) const {
  if (pending_tx_ == 0) return nullptr;
  std::uint64_t k = choice % pending_tx_;
  for (const AsyncCopy& c : copies_)
    if (c.bytes && c.trigger == Trigger::mbarrier_tx && k-- == 0) return &c;
  return nullptr;
}

void AsyncCopies::remove(unsigned slot) {
  AsyncCopy& c = copies_[slot];
  if (!c.landed) {  // dropped unlanded (block end): take it off the unlanded list
    const unsigned at = unlanded_at_[slot];
    unlanded_[at] = unlanded_.back();
    unlanded_at_[unlanded_[at]] = at;
    unlanded_.pop_back();
  }
  for (std::size_t i = c.offset; i < c.offset + c.bytes; ++i)
    if (owner_[i] == slot + 1) owner_[i] = 0;
  if (c.trigger == Trigger::mbarrier_tx) --pending_tx_;
  c = AsyncCopy{};
  free_.push_back(slot);
  --active_;
}

}  // namespace polyfuse::emu
