// The host hooks (kernels/cuda/host_hooks.h) that the helpers' host path calls: every
// memory access and cp.async is checked here (alignment, bounds, pending asynchronous
// copies, races) and counted; warp collectives rendezvous here.
#include <cstdio>
#include <cstring>

#include "agents.h"
#include "host_hooks.h"
#include "hopper.h"
#include "launch_state.h"

namespace polyfuse::emu {
namespace {

using pf_host::Direction;
using pf_host::Space;

const char* space_text(Space space) { return space == pf_host::global_space ? "global" : "shared"; }
const char* verb(Direction direction) { return direction == pf_host::load ? "load" : "store"; }

std::string pointer_text(std::uintptr_t address) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", reinterpret_cast<const void*>(address));
  return text;
}

// "0x... (buffer 'A' + 512)" for a global address.
std::string global_address_text(std::uintptr_t address) {
  std::string text = pointer_text(address);
  if (const RegisteredBuffer* b = buffer_registry().find(address, 1))
    text += " (buffer '" + b->name + "' + " + std::to_string(address - b->begin) + ")";
  return text;
}

std::string block_text(const Launch& l, unsigned linear) {
  return coord_text(uint3{linear % l.grid.x, (linear / l.grid.x) % l.grid.y, linear / (l.grid.x * l.grid.y)});
}

// The random schedule may switch threads at any hook, and land a pending copy early.
void schedule_point(Launch& l, ThreadState* t) {
  if (l.async_copies.pending() && l.schedule.land_early()) l.async_copies.land_early(l.schedule.uniform(1u << 30));
  hopper_schedule_point(l);
  if (l.schedule.preempt()) t->fiber.yield();
}

// `what()` names the access (only called for the message).
template <class What>
void check_alignment(const Launch& l, const ThreadState* t, What what, std::uintptr_t address, unsigned size,
                     std::uint16_t site) {
  if (address % size == 0) return;
  throw EmulationError("polyfuse emu: misaligned " + what() + " at " + global_address_text(address) + " (not " +
                       std::to_string(size) + "-byte aligned) in " + where(l, t) + l.sites.describe(site));
}

// Bounds check and byte counters; the buffer of a global access.
RegisteredBuffer* check_bounds(Launch& l, const ThreadState* t, Space space, Direction direction, std::uintptr_t addr,
                               unsigned bytes, std::uint16_t site) {
  char text[96];
  if (space == pf_host::global_space) {
    RegisteredBuffer* b = buffer_registry().find(addr, bytes);
    if (!b) {
      std::snprintf(text, sizeof text, "%u bytes at %p", bytes, reinterpret_cast<const void*>(addr));
      throw EmulationError(std::string("polyfuse emu: out-of-bounds global ") + verb(direction) + " of " + text +
                           " in " + where(l, t) + l.sites.describe(site) + ": " +
                           buffer_registry().describe_miss(addr, bytes));
    }
    (direction == pf_host::load ? b->bytes_loaded : b->bytes_stored) += bytes;
    (direction == pf_host::load ? l.stats.global_bytes_loaded : l.stats.global_bytes_stored) += bytes;
    return b;
  }
  const auto base = reinterpret_cast<std::uintptr_t>(l.shared) + block_base(l, t);
  if (addr < base || addr + bytes > base + l.block_shared_bytes) {
    std::snprintf(text, sizeof text, "%u bytes at %p (shared offset %lld)", bytes, reinterpret_cast<const void*>(addr),
                  static_cast<long long>(addr - base));
    throw EmulationError(std::string("polyfuse emu: out-of-bounds shared ") + verb(direction) + " of " + text + " in " +
                         where(l, t) + l.sites.describe(site) + ": the launch declared " +
                         std::to_string(l.block_shared_bytes) + " bytes of dynamic shared memory" +
                         (l.cluster_blocks > 1 ? " per block (a peer block's shared memory is reached through mapa "
                                                 "addresses and the cluster operations only)"
                                               : ""));
  }
  (direction == pf_host::load ? l.stats.shared_bytes_loaded : l.stats.shared_bytes_stored) += bytes;
  return nullptr;
}

// Files the access into its warp-wide request (coalescing and bank-conflict counters).
void log_request(Launch& l, ThreadState* t, Space space, Direction direction, std::uintptr_t addr, unsigned bytes) {
  l.warps[t->warp].log[space].record(t->sequence[space]++,
                                     AccessEntry{addr, bytes, static_cast<unsigned char>(t->lane),
                                                 static_cast<unsigned char>(space), static_cast<unsigned char>(direction)});
}

// An access (`what()`: "16-byte shared load", "cp.async ...") to bytes a pending copy will write.
template <class What>
void check_not_pending(const Launch& l, const ThreadState* t, What what, std::uintptr_t addr, unsigned bytes,
                       std::uint16_t site) {
  const std::size_t offset = addr - reinterpret_cast<std::uintptr_t>(l.shared);
  const AsyncCopy* c = l.async_copies.pending_at(offset, bytes);
  if (!c) return;
  if (c->trigger == Trigger::mbarrier_tx)
    throw EmulationError("polyfuse emu: " + what() + " at " + shared_address_text(l, addr) + " in " + where(l, t) +
                         l.sites.describe(site) + " touches the destination of " + pending_tma_text(l, *c));
  const std::string issuer = thread_text(l, c->thread);
  const std::uint64_t committed = l.async_copies.committed(c->thread);
  const std::string group = c->group == 0 ? "not committed to a group yet"
                                          : "in its group " + std::to_string(c->group) + " of " +
                                                std::to_string(committed) + " committed";
  throw EmulationError(
      "polyfuse emu: " + what() + " at " + shared_address_text(l, addr) + " in " +
      where(l, t) + l.sites.describe(site) + " touches the destination of a pending cp.async: " +
      std::to_string(c->bytes) + " bytes to " + shared_address_text(l, reinterpret_cast<std::uintptr_t>(l.shared) + c->offset) +
      " from global " + global_address_text(reinterpret_cast<std::uintptr_t>(c->src)) + " (" +
      std::to_string(c->src_bytes) + " bytes read), issued by thread " + issuer + l.sites.describe(c->site) + ", " +
      group + "; no cp.async.wait_group/wait_all of thread " + issuer + " has completed it yet");
}

std::string access_verb(const Launch& l, std::uint16_t site, bool write) {
  if (l.sites.is_async(site)) return "wrote (a cp.async its wait completed)";
  return write ? "wrote" : "read";
}

[[noreturn]] void report_shared_race(const Launch& l, const ThreadState* t, const std::string& what,
                                     std::uintptr_t addr, unsigned bytes, std::uint16_t site, const SharedRace& race) {
  const unsigned other = race.earlier.thread;
  if (other >= kAgentIdBase) {  // an asynchronous agent (TMA, wgmma) that nothing ordered before t
    throw EmulationError(
        "polyfuse emu: shared-memory race (" + std::string(to_string(race.kind)) + ") in " + where(l, nullptr) +
        ": thread " + coord_text(t->coords.thread_idx) + " " + what + " " + std::to_string(bytes) + " bytes at " +
        shared_address_text(l, addr) + l.sites.describe(site) + ", but " + agent_text(l, other) +
        (race.kind == RaceKind::write_after_read ? " read " : " wrote ") +
        shared_address_text(l, reinterpret_cast<std::uintptr_t>(l.shared) + race.offset) +
        l.sites.describe(race.earlier.site) + " and thread " + coord_text(t->coords.thread_idx) +
        " has not observed its completion (no mbarrier wait, wgmma.wait_group or bulk wait_group.read, or "
        "__syncthreads after one, orders it)");
  }
  const bool same_warp = other / 32 == t->warp;
  const std::string earlier = access_verb(l, race.earlier.site, race.kind != RaceKind::write_after_read);
  throw EmulationError(
      "polyfuse emu: shared-memory race (" + std::string(to_string(race.kind)) + ") in " + where(l, nullptr) +
      ": thread " + coord_text(t->coords.thread_idx) + " " + what + " " + std::to_string(bytes) + " bytes at " +
      shared_address_text(l, addr) + l.sites.describe(site) + ", but thread " + thread_text(l, other) + " " + earlier +
      " " + shared_address_text(l, reinterpret_cast<std::uintptr_t>(l.shared) + race.offset) +
      l.sites.describe(race.earlier.site) + " with no " +
      (same_warp ? "__syncthreads or collective of warp " + std::to_string(t->warp) : std::string("__syncthreads")) +
      " between them (" + (same_warp ? "lanes of one warp" : "warps " + std::to_string(other / 32) + " and " +
                                                                std::to_string(t->warp)) + ")");
}

void check_global_race(Launch& l, const ThreadState* t, const RegisteredBuffer& b, const char* what,
                       std::uintptr_t addr, unsigned bytes, GlobalRaceDetector::Op op, std::uint16_t site) {
  const auto race = l.global_races.access(b.begin, addr, bytes, op, t->block_linear);
  if (!race) return;
  std::string other = race->several_readers ? "several other blocks" : "block " + block_text(l, race->other_block);
  const char* did = race->kind == RaceKind::write_after_read ? " read" : race->other_atomic ? " wrote (atomically)" : " wrote";
  throw EmulationError("polyfuse emu: global-memory race between blocks (" + std::string(to_string(race->kind)) +
                       ") in " + where(l, t) + l.sites.describe(site) + ": " + std::string(what) + " " + std::to_string(bytes) +
                       " bytes at " + pointer_text(addr) + ", but " + other + did + " " +
                       global_address_text(race->address) +
                       " earlier in this launch (the blocks of a launch are not ordered; only atomics may share an "
                       "address)");
}

std::string access_what(Space space, Direction direction, unsigned bytes) {
  return std::to_string(bytes) + "-byte " + space_text(space) + " " + verb(direction);
}

}  // namespace
}  // namespace polyfuse::emu

// ---- host hooks (kernels/cuda/host_hooks.h) ----------------------------------------------

namespace pf_host {
using polyfuse::emu::EmulationError;
using polyfuse::emu::GlobalRaceDetector;
namespace emu = polyfuse::emu;

namespace {
void checked_access(Space space, Direction direction, const void* address, unsigned bytes, bool atomic,
                    const void* pc) {
  emu::Launch& l = emu::current_launch();
  emu::ThreadState* t = l.current;
  emu::schedule_point(l, t);
  const auto addr = reinterpret_cast<std::uintptr_t>(address);
  if (bytes == 0) {  // a lane whose predicate is off: not executed
    emu::log_request(l, t, space, direction, addr, 0);
    return;
  }
  const std::uint16_t site = l.sites.intern(pc);
  const auto what = [&] { return emu::access_what(space, direction, bytes); };
  // The hardware faults on a misaligned access ("misaligned address").
  if (bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16) emu::check_alignment(l, t, what, addr, bytes, site);
  emu::RegisteredBuffer* b = emu::check_bounds(l, t, space, direction, addr, bytes, site);
  if (space == shared_space) {
    emu::hopper_shared_access(l, t, addr - reinterpret_cast<std::uintptr_t>(l.shared), bytes, direction == store, site);
    emu::check_not_pending(l, t, what, addr, bytes, site);
    if (l.race_check && !atomic) {
      const std::size_t offset = addr - reinterpret_cast<std::uintptr_t>(l.shared);
      const auto race = direction == load ? l.shared_races.read(offset, bytes, t->linear, site)
                                          : l.shared_races.write(offset, bytes, t->linear, site);
      if (race) emu::report_shared_race(l, t, direction == load ? "loads" : "stores", addr, bytes, site, *race);
    }
  } else if (l.race_check) {
    const auto op = atomic ? GlobalRaceDetector::Op::atomic
                           : direction == load ? GlobalRaceDetector::Op::load : GlobalRaceDetector::Op::store;
    emu::check_global_race(l, t, *b, atomic ? "atomic" : direction == load ? "loads" : "stores", addr, bytes, op, site);
  }
  emu::log_request(l, t, space, direction, addr, bytes);
}
}  // namespace

void access(Space space, Direction direction, const void* address, unsigned bytes) {
  checked_access(space, direction, address, bytes, false, __builtin_return_address(0));
}

void atomic_access(Space space, const void* address, unsigned bytes) {
  checked_access(space, store, address, bytes, true, __builtin_return_address(0));
}

void async_copy(void* dst, const void* src, unsigned copy_bytes, unsigned src_bytes) {
  const void* pc = __builtin_return_address(0);
  emu::Launch& l = emu::current_launch();
  emu::ThreadState* t = l.current;
  emu::schedule_point(l, t);
  const std::uint16_t site = l.sites.intern(pc);
  const auto d = reinterpret_cast<std::uintptr_t>(dst), s = reinterpret_cast<std::uintptr_t>(src);
  if ((copy_bytes != 4 && copy_bytes != 8 && copy_bytes != 16) || src_bytes > copy_bytes)
    throw EmulationError("polyfuse emu: cp.async of " + std::to_string(copy_bytes) + " bytes with src-size " +
                         std::to_string(src_bytes) + " in " + emu::where(l, t) + l.sites.describe(site) +
                         " (cp-size is 4, 8 or 16 and src-size at most cp-size)");
  // Both operands must be aligned to cp-size, also when no source byte is read.
  const auto what = [&] {
    return "cp.async (" + std::to_string(copy_bytes) + " bytes, src-size " + std::to_string(src_bytes) + ")";
  };
  emu::check_alignment(l, t, [&] { return what() + " source"; }, s, copy_bytes, site);
  emu::check_alignment(l, t, [&] { return what() + " destination"; }, d, copy_bytes, site);
  if (src_bytes > 0) {
    emu::RegisteredBuffer* b = emu::check_bounds(l, t, global_space, load, s, src_bytes, site);
    if (l.race_check) emu::check_global_race(l, t, *b, "cp.async loads", s, src_bytes, GlobalRaceDetector::Op::load, site);
  }
  emu::log_request(l, t, global_space, load, s, src_bytes);
  emu::check_bounds(l, t, shared_space, store, d, copy_bytes, site);
  emu::check_not_pending(l, t, what, d, copy_bytes, site);
  const std::size_t offset = d - reinterpret_cast<std::uintptr_t>(l.shared);
  if (l.race_check)
    if (const auto race = l.shared_races.check_write(offset, copy_bytes, t->linear))
      emu::report_shared_race(l, t, "issues a cp.async writing", d, copy_bytes, site, *race);
  emu::log_request(l, t, shared_space, store, d, copy_bytes);
  emu::AsyncCopy copy;
  copy.offset = offset;
  copy.bytes = copy_bytes;
  copy.src = static_cast<const unsigned char*>(src);
  copy.src_bytes = src_bytes;
  copy.thread = t->linear;
  copy.site = l.sites.intern(pc, true);
  l.async_copies.issue(copy);
  l.stats.async_copies += 1;
}

void async_commit() {
  emu::Launch& l = emu::current_launch();
  emu::schedule_point(l, l.current);
  l.async_copies.commit(l.current->linear);
}

void async_wait(unsigned pending_groups) {
  emu::Launch& l = emu::current_launch();
  emu::schedule_point(l, l.current);
  l.async_copies.wait(l.current->linear, pending_groups, [&](const emu::AsyncCopy& c) {
    if (l.race_check) l.shared_races.record_write(c.offset, c.bytes, c.thread, c.site);
    l.hopper.proxy.generic_write(c.offset, c.bytes, c.thread, c.site);  // cp.async is a generic-proxy write
  });
}

void async_wait_all() {
  async_commit();
  async_wait(0);
}

const void* warp_exchange(const char* what, const void* mine, unsigned bytes) {
  auto& l = emu::current_launch();
  auto* t = l.current;
  auto& w = l.warps[t->warp];
  if (w.arrived == 0) {
    w.what = what;
    w.bytes = bytes;
  } else if (bytes != w.bytes || std::strcmp(what, w.what) != 0) {
    throw EmulationError(std::string("polyfuse emu: warp divergence in ") + emu::where(l, t) + ": lane " +
                         std::to_string(t->lane) + " reached '" + what + "' while other lanes of warp " +
                         std::to_string(t->warp) + " wait at '" + w.what + "'");
  }
  auto& deposits = w.deposits[w.generation & 1];
  if (deposits.size() < 32u * bytes) deposits.resize(32u * bytes);
  if (bytes) std::memcpy(deposits.data() + t->lane * bytes, mine, bytes);
  if (++w.arrived == w.size) {
    w.arrived = 0;
    ++w.generation;
    l.stats.warp_collectives += 1;
    emu::flush_warp(l, w);
    if (l.race_check) l.shared_races.warp_sync(t->warp);
    for (unsigned i = 0; i < w.size; ++i) {
      auto& other = l.threads[w.first + i];
      if (other.wait == emu::Wait::warp) other.wait = emu::Wait::none;
    }
  } else {
    t->wait = emu::Wait::warp;
    t->fiber.yield();
  }
  return deposits.data();
}

void gather_out_of_range(const char* tensor, int dimension, long long position, long long extent) {
  emu::Launch& l = emu::current_launch();
  throw EmulationError("polyfuse emu: gather out of range in " + where(l, l.current) + ": position " +
                       std::to_string(position) + " of dimension " + std::to_string(dimension) + " of " + tensor +
                       ", which holds 0.." + std::to_string(extent - 1) + " (the kernel traps on a GPU)");
}

unsigned lane_id() { return emu::current_launch().current->lane; }
unsigned warp_id() {
  const emu::Launch& l = emu::current_launch();
  return l.current->warp % ((l.block_threads + 31) / 32);
}
unsigned char* dynamic_shared() {
  const emu::Launch& l = emu::current_launch();
  return l.shared + emu::block_base(l, l.current);
}
unsigned long long dynamic_shared_bytes() { return emu::current_launch().block_shared_bytes; }

}  // namespace pf_host
