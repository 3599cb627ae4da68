// The emulator's launch: blocks in turn, CUDA threads as fibers picked by the schedule
// (schedule_policy.h), block barriers, and the checkers' per-block state. The host hooks
// that the helpers call are in host_hooks.cc.
#include <cxxabi.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>

#include "cluster.h"
#include "hopper.h"
#include "launch_state.h"

namespace polyfuse::emu {
namespace {

thread_local Launch* g_launch = nullptr;
thread_local std::vector<std::unique_ptr<FiberStack>> g_stacks;
thread_local std::size_t g_stack_bytes = 0;

void thread_entry(void* arg) {
  auto* l = static_cast<Launch*>(arg);
  ThreadState* t = l->current;
  try {
    (*l->body)();
  } catch (...) {
    if (!l->error) l->error = std::current_exception();
  }
  t->wait = Wait::exited;
  WarpState& w = l->warps[t->warp];
  if (++w.exited == w.size) flush_warp(*l, w);
  if (++l->block_exited[t->rank] == l->block_threads && l->cluster_blocks > 1 && !l->error) {
    try {
      cluster_block_exits(*l, t->rank);
    } catch (...) {
      l->error = std::current_exception();
    }
  }
}

void block_deadlock(Launch& l) {
  if (const std::string hopper = hopper_deadlock(l); !hopper.empty()) throw EmulationError(hopper);
  std::string at_barrier, exited, at_warp, at_cluster;
  unsigned n_barrier = 0, n_exited = 0, n_warp = 0, n_cluster = 0;
  const BlockBarrier* barrier = nullptr;
  for (ThreadState& t : l.threads) {
    if (t.wait == Wait::barrier && n_barrier++ == 0) {
      at_barrier = coord_text(t.coords.thread_idx);
      barrier = &l.block_barriers[t.rank];
    }
    if (t.wait == Wait::cluster && n_cluster++ == 0) at_cluster = thread_text(l, t.linear);
    if (t.wait == Wait::exited && n_exited++ == 0) exited = coord_text(t.coords.thread_idx);
    if (t.wait == Wait::warp && n_warp++ == 0)
      at_warp = coord_text(t.coords.thread_idx) + " at '" + l.warps[t.warp].what + "'";
  }
  std::string text = "polyfuse emu: barrier divergence (deadlock) in " + where(l, nullptr) + ":";
  if (n_barrier)
    text += " " + std::to_string(n_barrier) + " thread(s) wait at __syncthreads (" + barrier->file + ":" +
            std::to_string(barrier->line) + "), e.g. thread " + at_barrier + ";";
  if (n_cluster)
    text += " " + std::to_string(n_cluster) + " thread(s) wait at barrier.cluster.wait, e.g. thread " + at_cluster +
            ", for the " + std::to_string(l.threads.size() - l.cluster_barrier.arrived) +
            " thread(s) of the cluster that have not arrived on its phase;";
  if (n_warp) text += " " + std::to_string(n_warp) + " thread(s) wait at a warp collective, e.g. thread " + at_warp + ";";
  if (n_exited) text += " " + std::to_string(n_exited) + " thread(s) have exited, e.g. thread " + exited + ";";
  text.pop_back();
  throw EmulationError(text);
}

// Runs the cluster whose first block is l.block_idx (without clusters: that block).
void run_cluster(Launch& l) {
  const unsigned n = static_cast<unsigned>(l.threads.size());
  for (WarpState& w : l.warps) {
    w.arrived = w.exited = 0;
    w.what = nullptr;
  }
  std::fill(l.block_barriers.begin(), l.block_barriers.end(), BlockBarrier{});
  std::fill(l.block_exited.begin(), l.block_exited.end(), 0u);
  std::fill(l.last_remote.begin(), l.last_remote.end(), Launch::RemoteOp{});
  if (options().poison_shared && l.shared_bytes) std::memset(l.shared, 0xff, l.shared_bytes);
  l.schedule.begin_block(options().schedule, l.block_linear, n);
  l.shared_races.begin_block();
  l.async_copies.begin_block(l.shared);
  hopper_begin_block(l);
  l.cluster_barrier = ClusterBarrier{};
  l.cluster_barrier.arrival.assign(n, 0);
  l.cluster_barrier.released = l.cluster_barrier.completed = l.hopper.clocks.make_vector();
  for (unsigned i = 0; i < n; ++i) {
    ThreadState& t = l.threads[i];
    const unsigned r = t.rank;
    t.coords.block_idx = uint3{l.block_idx.x + r % l.cluster.x, l.block_idx.y + r / l.cluster.x % l.cluster.y,
                               l.block_idx.z + r / (l.cluster.x * l.cluster.y)};
    t.block_linear = t.coords.block_idx.x + l.grid.x * (t.coords.block_idx.y + l.grid.y * t.coords.block_idx.z);
    t.wait = Wait::none;
    t.sequence[0] = t.sequence[1] = 0;
    t.fiber.reset(*g_stacks[i], &thread_entry, &l, &l.scheduler);
  }
  unsigned exited = 0;
  while (exited < n) {
    const int next = l.schedule.next([&](unsigned i) { return l.threads[i].wait == Wait::none; });
    if (next < 0) {
      if (hopper_unstick(l)) continue;  // the copy engine finished TMA loads someone waits for
      block_deadlock(l);
    }
    ThreadState& t = l.threads[static_cast<unsigned>(next)];
    l.current = &t;
    t.fiber.resume();
    l.current = nullptr;
    if (l.error) std::rethrow_exception(l.error);
    if (t.wait == Wait::exited) ++exited;
  }
  hopper_end_block(l);
  l.stats.blocks += l.cluster_blocks;
}

// Appends the schedule to an error raised under a schedule other than round_robin.
[[noreturn]] void rethrow_with_schedule(const Launch& l) {
  try {
    throw;
  } catch (const EmulationError& e) {
    if (l.schedule.schedule().kind == ScheduleKind::round_robin) throw;
    throw EmulationError(std::string(e.what()) + " [schedule " + to_string(l.schedule.schedule()) + "]");
  }
}

}  // namespace

Launch& current_launch() {
  if (!g_launch || !g_launch->current)
    throw EmulationError("polyfuse emu: a CUDA built-in or helper was called outside an emulated kernel");
  return *g_launch;
}

std::string coord_text(uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

std::string where(const Launch& l, const ThreadState* t) {
  if (t) {
    std::string text = "kernel '" + l.kernel + "', block " + coord_text(t->coords.block_idx);
    if (l.cluster_blocks > 1) text += " (rank " + std::to_string(t->rank) + " of its cluster)";
    return text + ", thread " + coord_text(t->coords.thread_idx);
  }
  if (l.cluster_blocks == 1) return "kernel '" + l.kernel + "', block " + coord_text(l.block_idx);
  return "kernel '" + l.kernel + "', the cluster of " + std::to_string(l.cluster_blocks) + " blocks from block " +
         coord_text(l.block_idx);
}

std::string thread_text(const Launch& l, unsigned linear) {
  const ThreadState& t = l.threads[linear];
  if (l.cluster_blocks == 1) return coord_text(t.coords.thread_idx);
  return coord_text(t.coords.thread_idx) + " of block " + coord_text(t.coords.block_idx);
}

std::string shared_address_text(const Launch& l, std::uintptr_t address) {
  char text[64];
  std::snprintf(text, sizeof text, "shared offset %lld (%p)",
                static_cast<long long>(address - reinterpret_cast<std::uintptr_t>(l.shared)),
                reinterpret_cast<const void*>(address));
  return text;
}

void flush_warp(Launch& l, WarpState& w) {
  for (WarpAccessLog& log : w.log) log.flush(l.stats, reinterpret_cast<std::uintptr_t>(l.shared));
  for (unsigned i = 0; i < w.size; ++i) l.threads[w.first + i].sequence[0] = l.threads[w.first + i].sequence[1] = 0;
}

Options& options() {
  static Options o = [] {
    Options d;
    if (const char* kib = std::getenv("POLYFUSE_EMU_STACK_KIB")) d.fiber_stack_bytes = std::strtoull(kib, nullptr, 10) * 1024;
    if (const char* s = std::getenv("POLYFUSE_EMU_SCHEDULE"); s && *s) d.schedule = parse_schedule(s);
    if (const char* r = std::getenv("POLYFUSE_EMU_RACECHECK"); r && std::strcmp(r, "0") == 0) d.race_check = false;
    return d;
  }();
  return o;
}

void register_buffer(const void* data, std::size_t bytes, std::string name) {
  buffer_registry().add(data, bytes, std::move(name));
}
void unregister_buffer(const void* data) { buffer_registry().remove(data); }


std::string symbol_name(const void* address) {
  Dl_info info{};
  if (dladdr(address, &info) && info.dli_sname && info.dli_saddr == address) {
    int status = 0;
    char* demangled = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
    std::string name = status == 0 && demangled ? demangled : info.dli_sname;
    std::free(demangled);
    return name;
  }
  char text[40];
  std::snprintf(text, sizeof text, "kernel@%p", address);
  return text;
}

Stats launch_body(std::string kernel_name, dim3 grid, dim3 block, std::size_t dynamic_shared_bytes,
                  const std::function<void()>& body, dim3 cluster) {
  if (g_launch) throw EmulationError("polyfuse emu: nested launch of '" + kernel_name + "'");
  const unsigned block_threads = block.x * block.y * block.z;
  if (block_threads == 0 || block_threads > 1024)
    throw EmulationError("polyfuse emu: kernel '" + kernel_name + "': block of " + std::to_string(block_threads) +
                         " threads (must be 1..1024)");
  check_cluster(kernel_name, grid, cluster, block_threads);
  const unsigned blocks = cluster.x * cluster.y * cluster.z, n = blocks * block_threads;
  auto owned = std::make_unique<Launch>();
  Launch& l = *owned;
  l.kernel = std::move(kernel_name);
  l.grid = grid;
  l.block = block;
  l.cluster = cluster;
  l.cluster_blocks = blocks;
  l.block_threads = block_threads;
  l.block_shared_bytes = dynamic_shared_bytes;
  l.block_stride = blocks == 1 ? dynamic_shared_bytes : (dynamic_shared_bytes + 1023) / 1024 * 1024;
  l.shared_bytes = blocks == 1 ? dynamic_shared_bytes : l.block_stride * blocks;
  l.block_barriers.assign(blocks, BlockBarrier{});
  l.block_exited.assign(blocks, 0);
  l.last_remote.assign(blocks, Launch::RemoteOp{});
  l.body = &body;
  // 1024-byte aligned, like the dynamic shared memory of Hopper kernels (PF_DYNAMIC_SHARED_SM90):
  // the TMA/wgmma swizzles apply to shared-window address bits up to bit 9 (each block of a
  // cluster at a multiple of 1024 bytes).
  l.shared_storage.resize(l.shared_bytes + 1024);
  l.shared = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(l.shared_storage.data()) + 1023) & ~std::uintptr_t{1023});
  l.threads.resize(n);
  const unsigned block_warps = (block_threads + 31) / 32, n_warps = blocks * block_warps;
  l.warps.resize(n_warps);
  for (unsigned w = 0; w < n_warps; ++w) {
    l.warps[w].first = block_threads * (w / block_warps) + 32 * (w % block_warps);
    l.warps[w].size = std::min(32u, block_threads - 32 * (w % block_warps));
  }
  for (unsigned i = 0; i < n; ++i) {
    ThreadState& t = l.threads[i];
    const unsigned local = i % block_threads;
    t.linear = i;
    t.rank = i / block_threads;
    t.warp = t.rank * block_warps + local / 32;
    t.lane = local % 32;
    t.coords.thread_idx = uint3{local % block.x, (local / block.x) % block.y, local / (block.x * block.y)};
    t.coords.block_dim = block;
    t.coords.grid_dim = grid;
  }
  const std::size_t stack_bytes = options().fiber_stack_bytes;
  if (g_stack_bytes != stack_bytes) {
    g_stacks.clear();
    g_stack_bytes = stack_bytes;
  }
  while (g_stacks.size() < n) g_stacks.push_back(std::make_unique<FiberStack>(stack_bytes));
  l.race_check = options().race_check;
  if (l.race_check) {
    l.shared_races.begin_launch(l.shared_bytes, n_warps);
    l.global_races.begin_launch();
  }
  l.async_copies.begin_launch(l.shared_bytes, n);
  l.sites.clear();
  hopper_begin_launch(l);

  buffer_registry().reset_counters();
  g_launch = &l;
  try {
    std::uint64_t done = 0;
    for (unsigned z = 0; z < grid.z; z += cluster.z)
      for (unsigned y = 0; y < grid.y; y += cluster.y)
        for (unsigned x = 0; x < grid.x; x += cluster.x) {
          l.block_idx = uint3{x, y, z};
          l.block_linear = x + grid.x * (y + grid.y * z);
          run_cluster(l);
          done += blocks;
          if (options().progress) options().progress(done, static_cast<std::uint64_t>(grid.x) * grid.y * grid.z);
        }
  } catch (...) {
    g_launch = nullptr;
    rethrow_with_schedule(l);
  }
  g_launch = nullptr;
  l.stats.threads = static_cast<std::uint64_t>(block_threads) * l.stats.blocks;
  buffer_registry().collect(l.stats);
  return l.stats;
}

namespace detail {
const ThreadCoords& coords() { return current_launch().current->coords; }

void syncthreads(const char* file, unsigned line) {
  Launch& l = current_launch();
  ThreadState* t = l.current;
  BlockBarrier& b = l.block_barriers[t->rank];
  if (b.arrived == 0) {
    b.file = file;
    b.line = line;
    b.first = t->linear;
  } else if (line != b.line || std::strcmp(file, b.file) != 0) {
    throw EmulationError("polyfuse emu: barrier divergence in " + where(l, t) + ": reached __syncthreads at " +
                         file + ":" + std::to_string(line) + " while thread " +
                         coord_text(l.threads[b.first].coords.thread_idx) + " waits at __syncthreads at " +
                         b.file + ":" + std::to_string(b.line));
  }
  if (++b.arrived == l.block_threads) {
    b.arrived = 0;
    l.stats.barriers += 1;
    const unsigned first = t->rank * l.block_threads;
    if (l.cluster_blocks == 1) {
      for (WarpState& w : l.warps) flush_warp(l, w);
      if (l.race_check) {
        l.shared_races.block_barrier();
        l.hopper.clocks.merge();
      }
    } else {  // one block of the cluster: ordered through the sync clocks of its threads alone
      for (WarpState& w : l.warps)
        if (w.first >= first && w.first < first + l.block_threads) flush_warp(l, w);
      if (l.race_check) {
        std::vector<std::uint32_t> all = l.hopper.clocks.make_vector();
        const std::uint32_t r = l.shared_races.sync_point();
        for (unsigned i = first; i < first + l.block_threads; ++i)
          l.hopper.clocks.release(i, r, l.shared_races.block_sync(), l.shared_races.warp_sync_serial(l.threads[i].warp), all);
        for (unsigned i = first; i < first + l.block_threads; ++i) l.hopper.clocks.acquire(i, all);
      }
    }
    l.schedule.barrier_completed();
    for (unsigned i = first; i < first + l.block_threads; ++i)
      if (l.threads[i].wait == Wait::barrier) l.threads[i].wait = Wait::none;
    return;
  }
  t->wait = Wait::barrier;
  t->fiber.yield();
}
}  // namespace detail

}  // namespace polyfuse::emu
