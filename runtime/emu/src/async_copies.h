// Asynchronous operations pending in one block, and what completes them (PTX ISA 9.7.9.25,
// "Asynchronous copy"). An operation is issued (checked, counted), stays pending while its
// issuing thread goes on, and completes when its completion trigger fires; only then is its
// result visible, and any access to its destination before that is an error (the caller
// checks pending_at() on every shared access).
//
// Today's operation is cp.async (global → shared, 4/8/16 bytes, zero-filled past src_bytes)
// and its trigger is the async-group mechanism: a cp.async.commit_group of the issuing
// thread puts its uncommitted copies into its next group (numbered 1, 2, ... per thread);
// cp.async.wait_group N completes every group of that thread but the newest N; wait_all is
// commit + wait_group 0; uncommitted copies are not waited for by wait_group. Copies still
// pending when their thread exits never complete (nothing may read them) and are dropped
// with the block. The bytes may land in shared memory earlier than the trigger (land_early,
// as the hardware may), but stay pending until it fires.
//
// The same list serves the Hopper TMA loads (cp.async.bulk.tensor, tma_copy.h): a box is a
// set of 16-byte chunks with Trigger::mbarrier_tx, completed by the copy engine (complete_tx_if)
// when a thread waits on their mbarrier, when no thread can run, or (random schedule) at random
// points; each completed chunk lowers the mbarrier's transaction count. wgmma keeps its own
// in-flight state (wgmma_state.h): its result goes to registers, not shared memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace polyfuse::emu {

// What completes a pending operation.
enum class Trigger : unsigned char {
  async_group,  // cp.async: the issuing thread's cp.async.wait_group covering `group`
  mbarrier_tx   // a TMA load chunk: the copy engine finishes it and lowers the transaction
                // count of the mbarrier at shared offset `barrier` (tma_copy.h decides when)
};

struct AsyncCopy {
  std::size_t offset = 0;           // shared destination (offset in the block's shared memory)
  unsigned bytes = 0;               // bytes written at the destination (cp-size)
  const unsigned char* src = nullptr;
  unsigned src_bytes = 0;           // bytes read from src; the rest of the destination is zero
  unsigned dst_skip = 0;            // leading destination bytes zero-filled before the src bytes
                                    // (a TMA box that starts outside the tensor)
  unsigned thread = 0;              // issuing thread (linear index)
  std::uint16_t site = 0;           // AccessSites index of the issuing helper
  Trigger trigger = Trigger::async_group;
  // async_group: the issuing thread's async-group `group` (0: not committed yet).
  std::uint64_t group = 0;
  // mbarrier_tx: the mbarrier (shared offset) and the TMA operation (numbered per launch).
  std::size_t barrier = 0;
  std::uint64_t operation = 0;
  bool landed = false;              // the bytes are already in shared memory
};

class AsyncCopies {
 public:
  // A new launch: `shared_bytes` of shared memory, `threads` threads per block.
  void begin_launch(std::size_t shared_bytes, unsigned threads);
  // A new block whose shared memory is at `shared`: everything pending is dropped.
  void begin_block(unsigned char* shared);
  // The pending operation that writes a byte of [offset, offset + bytes), or nullptr.
  const AsyncCopy* pending_at(std::size_t offset, unsigned bytes) const;
  // Adds a pending copy (its destination must not overlap a pending one: pending_at first).
  void issue(const AsyncCopy& copy);
  // cp.async.commit_group of `thread`.
  void commit(unsigned thread);
  // The number of the newest group `thread` committed (0: none).
  std::uint64_t committed(unsigned thread) const { return threads_[thread].committed; }
  // cp.async.wait_group `allowed` of `thread`: completes its groups but the newest `allowed`,
  // calling done(copy) for each completed copy after its bytes landed.
  template <class Done> void wait(unsigned thread, unsigned allowed, Done done);
  // Lands the bytes of one pending copy, chosen by `choice`, ahead of its trigger.
  void land_early(std::uint64_t choice);
  std::size_t pending() const { return active_; }
  // Completes every pending operation with trigger mbarrier_tx for which pick(copy) is true:
  // lands its bytes, removes it, then calls done(copy). Returns how many completed.
  template <class Pick, class Done> std::size_t complete_tx_if(Pick pick, Done done);
  // The number of pending mbarrier_tx operations, and one of them chosen by `choice`.
  std::size_t pending_tx() const { return pending_tx_; }
  const AsyncCopy* pending_tx_at(std::uint64_t choice) const;

 private:
  void land(AsyncCopy& c);
  void remove(unsigned slot);
  struct ThreadGroups {
    std::uint64_t committed = 0;  // groups committed so far
    std::vector<unsigned> slots;  // its pending copies
  };
  std::vector<AsyncCopy> copies_;    // slots; active ones have bytes > 0
  std::vector<unsigned> free_;       // free slots
  std::vector<unsigned> unlanded_;   // active slots whose bytes have not landed
  std::vector<unsigned> unlanded_at_;  // slot → index in unlanded_
  std::vector<std::uint32_t> owner_;   // per shared byte: pending slot + 1 that writes it, or 0
  std::vector<ThreadGroups> threads_;
  unsigned char* shared_ = nullptr;
  std::size_t active_ = 0;
  std::size_t pending_tx_ = 0;
};

template <class Done> void AsyncCopies::wait(unsigned thread, unsigned allowed, Done done) {
  ThreadGroups& t = threads_[thread];
  const std::uint64_t last = t.committed > allowed ? t.committed - allowed : 0;
  std::vector<unsigned>& slots = t.slots;
  for (std::size_t i = 0; i < slots.size();) {
    AsyncCopy& c = copies_[slots[i]];
    if (c.group == 0 || c.group > last) {
      ++i;
      continue;
    }
    land(c);
    const unsigned slot = slots[i];
    slots[i] = slots.back();
    slots.pop_back();
    const AsyncCopy completed = c;
    remove(slot);
    done(completed);
  }
}

template <class Pick, class Done> std::size_t AsyncCopies::complete_tx_if(Pick pick, Done done) {
  if (pending_tx_ == 0) return 0;
  std::size_t completed = 0;
  for (unsigned slot = 0; slot < copies_.size(); ++slot) {
    AsyncCopy& c = copies_[slot];
    if (c.bytes == 0 || c.trigger != Trigger::mbarrier_tx || !pick(static_cast<const AsyncCopy&>(c))) continue;
    land(c);
    const AsyncCopy finished = c;
    remove(slot);
    ++completed;
    done(finished);
  }
  return completed;
}

}  // namespace polyfuse::emu
