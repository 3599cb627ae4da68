// The TMA hooks (host_hooks.h; PTX ISA 9.7.9.27 "cp.async.bulk.tensor", 9.7.9.24 bulk
// commit/wait groups): a load is a set of pending 16-byte chunks (async_copies.h, Trigger::
// mbarrier_tx) that land and lower their mbarrier's transaction count when the copy engine
// finishes them; a store reads its shared source at issue (checked as an async-proxy read) and
// writes the tensor, its source staying reserved until the issuing thread's wait_group.read.
//
// The box lies in shared memory as the driver lays it out: dimension 0 contiguous, rows of
// boxDim[0] elements one after another, each 16-byte chunk placed by the map's swizzle on the
// shared-window address (the 128B swizzle: chunk XOR (address >> 7) & 7). Elements outside the
// tensor are zero in a load and not written by a store.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "access_tracker.h"
#include "agents.h"
#include "cluster.h"
#include "hopper.h"
#include "hopper_checks.h"
#include "host_hooks.h"
#include "tensor_map_format.h"

namespace polyfuse::emu {
namespace {

std::uint64_t swizzled(const EmuTensorMap& m, std::uint64_t offset) {
  const unsigned bits = m.swizzle;  // tma::Swizzle none/32B/64B/128B = 0..3
  return offset ^ (((offset >> 7) & ((1u << bits) - 1u)) << 4);
}

std::string fmt_hex(unsigned v) {
  char text[16];
  std::snprintf(text, sizeof text, "%x", v);
  return text;
}

std::string coords_text(const int* coords, unsigned rank) {
  std::string s = "(";
  for (unsigned i = 0; i < rank; ++i) s += (i ? ", " : "") + std::to_string(coords[i]);
  return s + ")";
}

// One 16-byte chunk of a box: its shared offset and the part of the tensor it holds.
struct Chunk {
  std::uint64_t shared = 0;           // shared offset (swizzled)
  const unsigned char* src = nullptr; // first in-bounds byte in global memory
  unsigned skip = 0, bytes = 0;       // leading out-of-bounds bytes, in-bounds bytes
};

// Calls f(chunk) for every chunk of the box at `coords` placed at shared offset `base`.
template <class F> void for_each_chunk(const EmuTensorMap& m, const int* coords, std::uint64_t base, F f) {
  const unsigned e = m.element_bytes, row_bytes = m.box[0] * e, per_chunk = 16 / e;
  unsigned counts[5] = {1, 1, 1, 1, 1};
  std::uint64_t rows = 1;
  for (unsigned i = 1; i < m.rank; ++i) rows *= counts[i] = box_elements(m, i);
  for (std::uint64_t row = 0; row < rows; ++row) {
    std::uint64_t rest = row, outer_offset = 0;
    bool outer_in = true;
    for (unsigned i = 1; i < m.rank; ++i) {
      const long long x = coords[i] + static_cast<long long>(rest % counts[i]) * m.element_stride[i];
      rest /= counts[i];
      if (x < 0 || static_cast<std::uint64_t>(x) >= m.dim[i]) outer_in = false;
      else outer_offset += static_cast<std::uint64_t>(x) * m.stride[i];
    }
    for (unsigned c = 0; c < row_bytes / 16; ++c) {
      Chunk chunk;
      chunk.shared = swizzled(m, base + row * row_bytes + 16u * c);
      const long long x0 = coords[0] + static_cast<long long>(c * per_chunk);
      const long long lo = std::max<long long>(x0, 0),
                      hi = std::min<long long>(x0 + per_chunk, static_cast<long long>(m.dim[0]));
      if (outer_in && lo < hi) {
        chunk.skip = static_cast<unsigned>((lo - x0) * e);
        chunk.bytes = static_cast<unsigned>((hi - lo) * e);
        chunk.src = reinterpret_cast<const unsigned char*>(m.address + outer_offset + static_cast<std::uint64_t>(lo) * e);
      }
      f(chunk);
    }
  }
}

EmuTensorMap checked_map(const Launch& l, const ThreadState* t, const void* map, unsigned rank, const char* op,
                         std::uint16_t site) {
  const auto m = decode_tensor_map(map);
  if (!m)
    throw EmulationError("polyfuse emu: " + std::string(op) + " in " + here(l, t, site) +
                         ": its tensor-map parameter holds no tensor map the emulator encoded (build it with "
                         "polyfuse::tma::encode_tiled for the emulator, runtime/tma/tensor_map.h)");
  if (m->rank != rank)
    throw EmulationError("polyfuse emu: " + std::string(op) + "." + std::to_string(rank) + "d in " + here(l, t, site) +
                         " with a tensor map of rank " + std::to_string(m->rank));
  return *m;
}

// The innermost coordinate of a tiled copy: a multiple of 16 bytes. Not among the documented
// rules, but an H200 stops every other copy with "an illegal instruction was encountered" (the
// loads of 2026-11-30, every swizzle mode: f16 coordinates 1, 3, 4, 60, 66, 67, 68, 71, 82 and -3
// failed, 0, 8, 48, 56, 64, 72 and -8 ran; other coordinates need no alignment).
void check_inner_coordinate(const Launch& l, const ThreadState* t, const EmuTensorMap& m, const int* coords,
                            unsigned rank, const char* op, std::uint16_t site) {
  const long long bytes = static_cast<long long>(coords[0]) * m.element_bytes;
  if (bytes % 16 != 0)
    throw EmulationError("polyfuse emu: " + std::string(op) + " at " + coords_text(coords, rank) + " in " +
                         here(l, t, site) + ": the innermost coordinate " + std::to_string(coords[0]) + " is " +
                         std::to_string(bytes) + " bytes from the row's start, not a multiple of 16 (a Hopper GPU "
                         "stops the copy with an illegal instruction)");
}

// A TMA store's box starts inside the tensor's lower bounds: an H200 stopped stores at innermost
// coordinates -3 and -8 with an illegal instruction (2026-11-30; loads there run and zero-fill).
// Negative outer coordinates were not tried: refused alike, until a GPU says otherwise.
void check_store_origin(const Launch& l, const ThreadState* t, const int* coords, unsigned rank, const char* op,
                        std::uint16_t site) {
  for (unsigned i = 0; i < rank; ++i)
    if (coords[i] < 0)
      throw EmulationError("polyfuse emu: " + std::string(op) + " at " + coords_text(coords, rank) + " in " +
                           here(l, t, site) + ": coordinate " + std::to_string(i) + " is negative (a Hopper GPU stops a "
                           "TMA store whose box starts before the tensor with an illegal instruction)");
}

// The shared offset of a box at `p`: inside the dynamic shared memory, 128-byte aligned, and
// (swizzled) at a multiple of the swizzle pattern.
std::size_t checked_box(const Launch& l, const ThreadState* t, const EmuTensorMap& m, const void* p, const char* what,
                        std::uint16_t site) {
  const std::uint64_t bytes = box_bytes(m);
  const std::size_t offset = checked_shared_offset(l, t, p, bytes, std::string(what) + " box", site);
  if (offset % 128 != 0)
    throw EmulationError("polyfuse emu: " + std::string(what) + " box at shared offset " + std::to_string(offset) +
                         " in " + here(l, t, site) + " is not 128-byte aligned");
  const unsigned pattern = m.swizzle ? 128u << m.swizzle : 0;
  if (pattern && offset % pattern != 0)
    throw EmulationError("polyfuse emu: " + std::string(what) + " box at shared offset " + std::to_string(offset) +
                         " in " + here(l, t, site) + " with " + tma::to_string(static_cast<tma::Swizzle>(m.swizzle)) +
                         " does not start at a multiple of its " + std::to_string(pattern) +
                         "-byte pattern (other placements are not modelled by the emulator)");
  return offset;
}

RegisteredBuffer& checked_global(Launch& l, const ThreadState* t, const unsigned char* p, unsigned bytes,
                                 const char* what, const int* coords, unsigned rank, std::uint16_t site) {
  RegisteredBuffer* b = buffer_registry().find(reinterpret_cast<std::uintptr_t>(p), bytes);
  if (!b) {
    char address[32];
    std::snprintf(address, sizeof address, "%p", static_cast<const void*>(p));
    throw EmulationError("polyfuse emu: " + std::string(what) + " at " + coords_text(coords, rank) + " in " +
                         here(l, t, site) + " touches " + std::to_string(bytes) + " bytes at " + address +
                         ", inside the tensor map's extent but " +
                         buffer_registry().describe_miss(reinterpret_cast<std::uintptr_t>(p), bytes));
  }
  return *b;
}

void check_global_race(Launch& l, const ThreadState* t, const RegisteredBuffer& b, const unsigned char* p,
                       unsigned bytes, GlobalRaceDetector::Op op, const char* what, std::uint16_t site) {
  if (!l.race_check) return;
  if (const auto race = l.global_races.access(b.begin, reinterpret_cast<std::uintptr_t>(p), bytes, op, t->block_linear))
    throw EmulationError("polyfuse emu: global-memory race between blocks (" + std::string(to_string(race->kind)) +
                         ") in " + here(l, t, site) + ": " + what + " of buffer '" + b.name + "' + " +
                         std::to_string(reinterpret_cast<std::uintptr_t>(p) - b.begin) +
                         ", which another block of the launch accessed");
}

}  // namespace
}  // namespace polyfuse::emu

// ---- host hooks ----------------------------------------------------------------------------

namespace pf_host {
namespace emu = polyfuse::emu;
using polyfuse::emu::EmulationError;

namespace {
// A TMA load of the box at `coords` to `dst` completing on `bar` (both in the caller's block), or
// with a multicast `mask` (non-zero) the same box into every block of the mask at dst's offset,
// completing on the mbarrier at bar's offset in each.
void issue_tma_load(void* dst, const void* tensor_map, const int* coords, unsigned rank, void* bar, unsigned mask,
                    const void* pc) {
  const emu::HookCall call = emu::enter_hook(pc);
  emu::Launch& l = call.l;
  emu::ThreadState* t = call.t;
  const std::uint16_t site = call.site;
  const char* op = mask ? "TMA multicast load (cp.async.bulk.tensor .multicast::cluster)" : "TMA load (cp.async.bulk.tensor)";
  const emu::EmuTensorMap m = emu::checked_map(l, t, tensor_map, rank, op, site);
  emu::check_inner_coordinate(l, t, m, coords, rank, op, site);
  const std::size_t own_base = emu::block_base(l, t);
  const std::size_t own_bar = emu::checked_mbarrier(l, t, bar, op, site).offset - own_base;
  if (mask >> l.cluster_blocks)
    throw EmulationError("polyfuse emu: " + std::string(op) + " in " + emu::here(l, t, site) + " with the ctaMask 0x" +
                         emu::fmt_hex(mask) + ", which names blocks outside the cluster of " + std::to_string(l.cluster_blocks));
  const std::uint64_t bytes = emu::box_bytes(m);
  const std::size_t own_offset = emu::checked_box(l, t, m, dst, "TMA load", site) - own_base;
  const std::uint64_t number = ++l.hopper.tma_operations;
  std::vector<emu::AsyncCopy> chunks;
  for (unsigned target = 0; target < l.cluster_blocks; ++target) {
    if (mask ? !(mask >> target & 1u) : target != t->rank) continue;
    if (mask) emu::note_remote(l, t, target, op, site);
    const std::size_t base = target * l.block_stride;
    emu::Mbarrier& b = mask ? emu::checked_mbarrier_at(l, t, base + own_bar, op, site) : *l.hopper.barriers.find(base + own_bar);
    if (!b.async_visible)
      throw EmulationError("polyfuse emu: " + std::string(op) + " in " + emu::here(l, t, site) + " completes on " +
                           emu::mbarrier_text(b) + ", whose mbarrier.init by thread " + emu::thread_text(l, b.init_thread) +
                           l.sites.describe(b.init_site) +
                           " no fence.mbarrier_init or fence.proxy.async made visible to the async proxy");
    const std::size_t offset = base + own_offset;
    if (const emu::Mbarrier* hit = l.hopper.barriers.overlapping(offset, static_cast<unsigned>(bytes)))
      throw EmulationError("polyfuse emu: " + std::string(op) + " in " + emu::here(l, t, site) + " writes over " +
                           emu::mbarrier_text(*hit));
    const bool first_target = chunks.empty();
    const std::string in_block = l.cluster_blocks > 1 ? " (block rank " + std::to_string(target) + ")" : std::string();
    const std::string free_rule =
        mask ? std::string(" (a multicast into a block whose stage is not free: the producer waits on the stage's 'empty' "
                           "mbarrier, released by the consumers of every block of the multicast)")
             : std::string();
    emu::for_each_chunk(m, coords, offset, [&](const emu::Chunk& c) {
      if (const emu::AsyncCopy* pending = l.async_copies.pending_at(c.shared, 16))
        throw EmulationError("polyfuse emu: " + std::string(op) + " in " + emu::here(l, t, site) + " writes shared offset " +
                             std::to_string(c.shared - base) + in_block + ", the destination of " +
                             (pending->trigger == emu::Trigger::mbarrier_tx ? emu::pending_tma_text(l, *pending)
                                                                            : std::string("a pending cp.async")) +
                             free_rule);
      for (const emu::PendingStore& s : l.hopper.stores)
        if (c.shared < s.offset + s.bytes && s.offset < c.shared + 16)
          throw EmulationError("polyfuse emu: " + std::string(op) + " in " + emu::here(l, t, site) +
                               " overwrites the source of a TMA store of thread " + emu::thread_text(l, s.thread) +
                               l.sites.describe(s.site) + " not yet retired by its cp.async.bulk.wait_group.read");
      if (l.race_check)
        if (const auto race = l.shared_races.check_write(c.shared, 16, t->linear))
          throw EmulationError("polyfuse emu: shared-memory race (" + std::string(emu::to_string(race->kind)) + ") in " +
                               emu::where(l, nullptr) + ": " + op + " issued by thread " + emu::thread_text(l, t->linear) +
                               l.sites.describe(site) + " writes shared offset " + std::to_string(race->offset - base) + in_block +
                               ", but " + emu::agent_text(l, race->earlier.thread) +
                               (race->kind == emu::RaceKind::write_after_read ? " read" : " wrote") + " it" +
                               l.sites.describe(race->earlier.site) +
                               " and nothing orders that access before the load" +
                               (mask ? free_rule
                                     : std::string(" (the producer waits on the stage's 'empty' mbarrier, released by the "
                                                   "consumers after their wgmma.wait_group)")));
      if (c.bytes && first_target) {  // the box is read from global memory once, whatever the mask
        emu::RegisteredBuffer& g = emu::checked_global(l, t, c.src, c.bytes, op, coords, rank, site);
        emu::check_global_race(l, t, g, c.src, c.bytes, emu::GlobalRaceDetector::Op::load, "TMA load", site);
        g.bytes_loaded += c.bytes;
        l.stats.global_bytes_loaded += c.bytes;
      }
      emu::AsyncCopy copy;
      copy.offset = c.shared;
      copy.bytes = 16;
      copy.src = c.src;
      copy.src_bytes = c.bytes;
      copy.dst_skip = c.skip;
      copy.thread = t->linear;
      copy.site = site;
      copy.trigger = emu::Trigger::mbarrier_tx;
      copy.barrier = b.offset;
      copy.operation = number;
      chunks.push_back(copy);
    });
  }
  for (const emu::AsyncCopy& c : chunks) l.async_copies.issue(c);
  l.stats.tma_loads += 1;
  l.stats.tma_bytes += bytes;
}
}  // namespace

void tma_load(void* dst, const void* tensor_map, const int* coords, unsigned rank, void* bar) {
  issue_tma_load(dst, tensor_map, coords, rank, bar, 0, __builtin_return_address(0));
}

void tma_load_multicast(void* dst, const void* tensor_map, const int* coords, unsigned rank, void* bar,
                        unsigned short mask) {
  if (mask == 0) {
    const emu::HookCall call = emu::enter_hook(__builtin_return_address(0));
    throw EmulationError("polyfuse emu: TMA multicast load (cp.async.bulk.tensor .multicast::cluster) in " +
                         emu::here(call.l, call.t, call.site) + " with an empty ctaMask");
  }
  issue_tma_load(dst, tensor_map, coords, rank, bar, mask, __builtin_return_address(0));
}

void tma_store(const void* tensor_map, const int* coords, unsigned rank, const void* src) {
  const emu::HookCall call = emu::enter_hook(__builtin_return_address(0));
  emu::Launch& l = call.l;
  emu::ThreadState* t = call.t;
  const std::uint16_t site = call.site;
  const char* op = "TMA store (cp.async.bulk.tensor)";
  const emu::EmuTensorMap m = emu::checked_map(l, t, tensor_map, rank, op, site);
  emu::check_inner_coordinate(l, t, m, coords, rank, op, site);
  emu::check_store_origin(l, t, coords, rank, op, site);
  const std::uint64_t bytes = emu::box_bytes(m);
  const std::size_t offset = emu::checked_box(l, t, m, src, "TMA store", site);
  emu::for_each_chunk(m, coords, offset, [&](const emu::Chunk& c) {
    emu::check_async_read(l, t->linear, 1, static_cast<std::size_t>(c.shared), 16, [&] {
      return std::string(op) + " source chunk at " + emu::coords_text(coords, rank);
    }, site, emu::bulk_agent(t->warp));
    l.stats.shared_bytes_loaded += 16;
    if (c.bytes == 0) return;
    unsigned char* dst = const_cast<unsigned char*>(c.src);
    emu::RegisteredBuffer& g = emu::checked_global(l, t, dst, c.bytes, op, coords, rank, site);
    emu::check_global_race(l, t, g, dst, c.bytes, emu::GlobalRaceDetector::Op::store, "TMA store", site);
    std::memcpy(dst, l.shared + c.shared + c.skip, c.bytes);
    g.bytes_stored += c.bytes;
    l.stats.global_bytes_stored += c.bytes;
  });
  l.hopper.stores.push_back(emu::PendingStore{offset, bytes, t->linear, 0, site});
  l.stats.tma_stores += 1;
  l.stats.tma_bytes += bytes;
}

void bulk_commit() {
  emu::Launch& l = emu::current_launch();
  const unsigned t = l.current->linear;
  const std::uint64_t group = ++l.hopper.bulk_committed[t];
  for (emu::PendingStore& s : l.hopper.stores)
    if (s.thread == t && s.group == 0) s.group = group;
}

void bulk_wait(unsigned pending_groups, bool read_only) {
  (void)read_only;  // stores write the tensor at issue: .read and the full wait retire alike
  emu::Launch& l = emu::current_launch();
  emu::ThreadState* t = l.current;
  emu::hopper_schedule_point(l);
  const std::uint64_t committed = l.hopper.bulk_committed[t->linear];
  const std::uint64_t last = committed > pending_groups ? committed - pending_groups : 0;
  auto& stores = l.hopper.stores;
  bool remaining = false;
  for (std::size_t i = 0; i < stores.size();) {
    if (stores[i].thread == t->linear && stores[i].group != 0 && stores[i].group <= last) {
      stores.erase(stores.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      remaining = remaining || stores[i].thread == t->linear;
      ++i;
    }
  }
  if (l.race_check && !remaining) l.hopper.clocks.observe(t->linear, emu::bulk_agent(t->warp), l.shared_races.sync_point());
}

}  // namespace pf_host
