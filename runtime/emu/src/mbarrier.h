// The mbarrier objects of one block, with the semantics of PTX ISA 9.7.13.15 ("mbarrier"):
// an initialised barrier has an expected arrival count (1 .. 2^20 - 1, set by init), the
// arrivals still pending in the current phase, a transaction count in bytes (expect_tx raises
// it, complete_tx — a TMA load landing — lowers it; it may go negative in between) and the
// current phase number. When the pending arrivals and the transaction count are both zero the
// phase completes: the phase number advances and the pending count is reset to the expected
// count. try_wait.parity P succeeds when the phase with parity P has completed, i.e. while the
// current phase's parity differs from P (so the phase before the first, parity 1, counts as
// completed). The state lives here, keyed by the barrier's shared offset; its 8 bytes in shared
// memory are off limits to ordinary loads and stores (hopper_checks.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace polyfuse::emu {

constexpr unsigned kMbarrierMaxCount = (1u << 20) - 1;      // arrival count range
constexpr long long kMbarrierMaxTx = (1ll << 20) - 1;       // transaction count range

struct Mbarrier {
  std::size_t offset = 0;       // shared offset of the 8-byte object
  unsigned slot = 0;            // index in the table (its TMA agent, agents.h)
  unsigned expected = 0;        // arrivals per phase
  unsigned pending = 0;         // arrivals the current phase still needs
  long long tx = 0;             // transaction bytes the current phase still needs
  std::uint64_t phase = 0;      // number of the current phase (= phases completed)
  unsigned init_thread = 0;     // who initialised it, where
  std::uint16_t init_site = 0;
  bool async_visible = false;   // init followed by fence.mbarrier_init / fence.proxy.async
  std::vector<std::uint32_t> released;   // sync clocks released into the current phase
  std::vector<std::uint32_t> completed;  // ... into every completed phase (what a wait acquires)
};

class MbarrierTable {
 public:
  void begin_block() { barriers_.clear(); }
  // The initialised barrier whose object starts at `offset`, or nullptr.
  Mbarrier* find(std::size_t offset);
  // An initialised barrier whose 8 bytes overlap [offset, offset + bytes), or nullptr.
  const Mbarrier* overlapping(std::size_t offset, unsigned bytes) const;
  // (Re)initialises the barrier at `offset`; nullptr when the table is full (kMaxMbarriers).
  Mbarrier* init(std::size_t offset, unsigned count, unsigned thread, std::uint16_t site,
                 const std::vector<std::uint32_t>& zero_clock);
  std::vector<Mbarrier>& all() { return barriers_; }

  // Whether try_wait.parity `parity` succeeds now.
  static bool parity_completed(const Mbarrier& b, unsigned parity) { return (b.phase & 1u) != (parity & 1u); }
  // Completes the current phase if nothing is pending; returns whether it did.
  static bool complete_if_done(Mbarrier& b);

 private:
  std::vector<Mbarrier> barriers_;
};

}  // namespace polyfuse::emu
