// Thread-block clusters (cluster.h; PTX ISA 9.7.13.3 "barrier.cluster", 9.7.9.21 "mapa",
// 10.x special registers %cluster_ctarank / %cluster_nctarank): the launch's rules, the exit
// check, shared::cluster addresses and the cluster barrier. Remote mbarrier arrives are in
// mbarrier_hooks.cc, TMA multicast in tma_hooks.cc.
#include "cluster.h"

#include <algorithm>

#include "hopper.h"
#include "hopper_checks.h"
#include "host_hooks.h"

namespace polyfuse::emu {
namespace {

// A shared::cluster address as the emulator encodes it (host_hooks.h): bit 31, the rank in bits
// 24..30, the offset in the block's dynamic shared memory in bits 0..23; an address without
// bit 31 is a shared::cta address of the caller's own block.
constexpr unsigned kClusterAddressBit = 1u << 31;

}  // namespace

void check_cluster(const std::string& kernel, dim3 grid, dim3 cluster, unsigned block_threads) {
  const std::string at = "polyfuse emu: kernel '" + kernel + "': cluster " + coord_text(cluster) + " of grid " +
                         coord_text(grid);
  if (cluster.x == 0 || cluster.y == 0 || cluster.z == 0) throw EmulationError(at + ": a cluster dimension is 0");
  if (grid.x % cluster.x || grid.y % cluster.y || grid.z % cluster.z)
    throw EmulationError(at + ": the grid must be a multiple of the cluster in every dimension");
  const unsigned blocks = cluster.x * cluster.y * cluster.z;
  if (blocks > 8) throw EmulationError(at + ": more than 8 blocks in a cluster (the portable maximum)");
  if (static_cast<std::uint64_t>(blocks) * block_threads > 1024)
    throw EmulationError(at + ": " + std::to_string(blocks * block_threads) +
                         " threads in a cluster; the emulator models clusters of at most 1024 threads");
}

void note_remote(Launch& l, const ThreadState* t, unsigned rank, const char* what, std::uint16_t site) {
  if (l.block_exited[rank] == l.block_threads)
    throw EmulationError("polyfuse emu: " + std::string(what) + " in " + here(l, t, site) + " reaches the shared memory of block " +
                         coord_text(l.threads[rank * l.block_threads].coords.block_idx) + " (rank " + std::to_string(rank) +
                         "), which has exited: its exit must wait on a barrier.cluster that this thread arrives on "
                         "after its last remote operation");
  if (rank == t->rank) return;
  const std::uint64_t arrived = l.cluster_barrier.arrival[t->linear];
  const std::uint64_t phase = arrived ? arrived + 1 : l.cluster_barrier.phase;
  Launch::RemoteOp& last = l.last_remote[rank];
  if (phase >= last.phase) last = Launch::RemoteOp{phase, t->linear, site, what};
}

std::size_t cluster_window_offset(Launch& l, const ThreadState* t, unsigned address, unsigned bytes, const char* what,
                                  std::uint16_t site) {
  const unsigned rank = address & kClusterAddressBit ? (address >> 24) & 0x7fu : t->rank;
  const std::size_t offset = address & kClusterAddressBit ? address & 0xffffffu : address;
  if (rank >= l.cluster_blocks)
    throw EmulationError("polyfuse emu: " + std::string(what) + " in " + here(l, t, site) + " at a shared::cluster address of rank " +
                         std::to_string(rank) + ", outside the cluster of " + std::to_string(l.cluster_blocks) + " blocks");
  if (offset + bytes > l.block_shared_bytes)
    throw EmulationError("polyfuse emu: " + std::string(what) + " in " + here(l, t, site) + " (" + std::to_string(bytes) +
                         " bytes at shared offset " + std::to_string(offset) + " of rank " + std::to_string(rank) +
                         ") lies outside the block's " + std::to_string(l.block_shared_bytes) +
                         " bytes of dynamic shared memory");
  note_remote(l, t, rank, what, site);
  return rank * l.block_stride + offset;
}

void cluster_block_exits(Launch& l, unsigned rank) {
  const ThreadState* first = &l.threads[rank * l.block_threads];
  const std::string block = "block " + coord_text(first->coords.block_idx) + " (rank " + std::to_string(rank) +
                            " of its cluster) of kernel '" + l.kernel + "'";
  if (const AsyncCopy* c = l.async_copies.pending_at(rank * l.block_stride, static_cast<unsigned>(l.block_shared_bytes)))
    throw EmulationError("polyfuse emu: " + block + " exits while its shared memory is the destination of " +
                         (c->trigger == Trigger::mbarrier_tx ? pending_tma_text(l, *c) : std::string("a pending cp.async")) +
                         ": a block waits for every TMA load (multicasts of its peers included) into its shared memory "
                         "before it exits");
  const Launch::RemoteOp& r = l.last_remote[rank];
  if (r.phase != 0 && l.cluster_barrier.phase <= r.phase)
    throw EmulationError("polyfuse emu: missing barrier.cluster before the exit of " + block + ": thread " +
                         thread_text(l, r.thread) + " reached its shared memory (" + r.what + l.sites.describe(r.site) +
                         ") and nothing orders that before the exit; every thread of the cluster arrives on a "
                         "barrier.cluster after its last remote operation, and the block waits on it before it exits");
}

}  // namespace polyfuse::emu

// ---- host hooks ----------------------------------------------------------------------------

namespace pf_host {
namespace emu = polyfuse::emu;
using polyfuse::emu::EmulationError;

unsigned cluster_ctarank() { return emu::current_launch().current->rank; }
unsigned cluster_nctarank() { return emu::current_launch().cluster_blocks; }

unsigned cluster_map_address(const void* p, unsigned rank) {
  const emu::HookCall call = emu::enter_hook(__builtin_return_address(0));
  emu::Launch& l = call.l;
  const std::size_t window = emu::checked_shared_offset(l, call.t, p, 1, "mapa.shared::cluster", call.site);
  if (rank >= l.cluster_blocks)
    throw EmulationError("polyfuse emu: mapa.shared::cluster to rank " + std::to_string(rank) + " in " +
                         emu::here(l, call.t, call.site) + ", outside the cluster of " + std::to_string(l.cluster_blocks) +
                         " blocks");
  const std::size_t offset = window - emu::block_base(l, call.t);
  return emu::kClusterAddressBit | rank << 24 | static_cast<unsigned>(offset);
}

void cluster_arrive(bool relaxed) {
  const emu::HookCall call = emu::enter_hook(__builtin_return_address(0));
  emu::Launch& l = call.l;
  emu::ThreadState* t = call.t;
  emu::ClusterBarrier& b = l.cluster_barrier;
  if (b.arrival[t->linear] != 0)
    throw EmulationError("polyfuse emu: barrier.cluster.arrive in " + emu::here(l, t, call.site) +
                         " by a thread that arrived on phase " + std::to_string(b.arrival[t->linear]) +
                         " and has not waited on it (barrier.cluster.wait first)");
  b.arrival[t->linear] = b.phase;
  if (l.race_check && !relaxed)
    l.hopper.clocks.release(t->linear, l.shared_races.sync_point(), l.shared_races.block_sync(),
                            l.shared_races.warp_sync_serial(t->warp), b.released);
  if (++b.arrived < l.threads.size()) return;
  b.arrived = 0;
  ++b.phase;
  for (std::size_t i = 0; i < b.completed.size(); ++i) b.completed[i] = std::max(b.completed[i], b.released[i]);
  std::fill(b.released.begin(), b.released.end(), 0);
  l.stats.barriers += 1;
  l.schedule.barrier_completed();
  for (emu::ThreadState& other : l.threads)
    if (other.wait == emu::Wait::cluster) other.wait = emu::Wait::none;
}

void cluster_wait() {
  const emu::HookCall call = emu::enter_hook(__builtin_return_address(0));
  emu::Launch& l = call.l;
  emu::ThreadState* t = call.t;
  emu::ClusterBarrier& b = l.cluster_barrier;
  const std::uint64_t phase = b.arrival[t->linear];
  if (phase == 0)
    throw EmulationError("polyfuse emu: barrier.cluster.wait in " + emu::here(l, t, call.site) +
                         " by a thread that has not arrived (barrier.cluster.arrive first)");
  while (b.phase <= phase) {
    t->wait = emu::Wait::cluster;
    t->fiber.yield();
  }
  b.arrival[t->linear] = 0;
  if (l.race_check) l.hopper.clocks.acquire(t->linear, b.completed);
}

}  // namespace pf_host
