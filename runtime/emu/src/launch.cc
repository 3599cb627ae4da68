// The emulator's launch: blocks in turn, CUDA threads as fibers, warp rendezvous, block
// barriers, and the host hooks (kernels/cuda/host_hooks.h) that the helpers call.
#include <cxxabi.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>

#include "access_tracker.h"
#include "fiber.h"
#include "host_hooks.h"
#include "polyfuse_emu/cuda_emulation.h"
#include "polyfuse_emu/emulator.h"

namespace polyfuse::emu {
namespace {

enum class Wait { none, warp, barrier, exited };

struct ThreadState {
  detail::ThreadCoords coords{};
  unsigned linear = 0, warp = 0, lane = 0;
  Wait wait = Wait::none;
  unsigned sequence[2] = {0, 0};  // global / shared accesses since the warp's last sync point
  Fiber fiber;
};

struct WarpState {
  unsigned first = 0, size = 0, arrived = 0, generation = 0, exited = 0;
  const char* what = nullptr;
  unsigned bytes = 0;
  std::vector<unsigned char> deposits[2];
  WarpAccessLog log[2];  // global, shared
};

struct Launch {
  std::string kernel;
  dim3 grid, block;
  std::size_t shared_bytes = 0;
  const std::function<void()>* body = nullptr;
  std::vector<ThreadState> threads;
  std::vector<WarpState> warps;
  std::vector<unsigned char> shared_storage;
  unsigned char* shared = nullptr;
  unsigned barrier_arrived = 0;
  const char* barrier_file = nullptr;
  unsigned barrier_line = 0;
  unsigned barrier_first = 0;
  uint3 block_idx{};
  ThreadState* current = nullptr;
  ucontext_t scheduler{};
  std::exception_ptr error;
  Stats stats;
};

thread_local Launch* g_launch = nullptr;
thread_local Stats g_last_stats;
thread_local std::vector<std::unique_ptr<FiberStack>> g_stacks;
thread_local std::size_t g_stack_bytes = 0;

std::string coord_text(uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

std::string where(const Launch& l, const ThreadState* t) {
  std::string text = "kernel '" + l.kernel + "', block " + coord_text(l.block_idx);
  if (t) text += ", thread " + coord_text(t->coords.thread_idx);
  return text;
}

Launch& current_launch() {
  if (!g_launch || !g_launch->current)
    throw EmulationError("polyfuse emu: a CUDA built-in or helper was called outside an emulated kernel");
  return *g_launch;
}

void flush_warp(Launch& l, WarpState& w) {
  for (WarpAccessLog& log : w.log) log.flush(l.stats, reinterpret_cast<std::uintptr_t>(l.shared));
  for (unsigned i = 0; i < w.size; ++i) l.threads[w.first + i].sequence[0] = l.threads[w.first + i].sequence[1] = 0;
}

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
}

void block_deadlock(Launch& l) {
  std::string at_barrier, exited, at_warp;
  unsigned n_barrier = 0, n_exited = 0, n_warp = 0;
  for (ThreadState& t : l.threads) {
    if (t.wait == Wait::barrier && n_barrier++ == 0) at_barrier = coord_text(t.coords.thread_idx);
    if (t.wait == Wait::exited && n_exited++ == 0) exited = coord_text(t.coords.thread_idx);
    if (t.wait == Wait::warp && n_warp++ == 0)
      at_warp = coord_text(t.coords.thread_idx) + " at '" + l.warps[t.warp].what + "'";
  }
  std::string text = "polyfuse emu: barrier divergence (deadlock) in kernel '" + l.kernel + "', block " +
                     coord_text(l.block_idx) + ":";
  if (n_barrier)
    text += " " + std::to_string(n_barrier) + " thread(s) wait at __syncthreads (" + l.barrier_file + ":" +
            std::to_string(l.barrier_line) + "), e.g. thread " + at_barrier + ";";
  if (n_warp) text += " " + std::to_string(n_warp) + " thread(s) wait at a warp collective, e.g. thread " + at_warp + ";";
  if (n_exited) text += " " + std::to_string(n_exited) + " thread(s) have exited, e.g. thread " + exited + ";";
  text.pop_back();
  throw EmulationError(text);
}

void run_block(Launch& l) {
  const unsigned n = static_cast<unsigned>(l.threads.size());
  for (WarpState& w : l.warps) {
    w.arrived = w.exited = 0;
    w.what = nullptr;
  }
  l.barrier_arrived = 0;
  if (options().poison_shared && l.shared_bytes) std::memset(l.shared, 0xff, l.shared_bytes);
  for (unsigned i = 0; i < n; ++i) {
    ThreadState& t = l.threads[i];
    t.coords.block_idx = l.block_idx;
    t.wait = Wait::none;
    t.sequence[0] = t.sequence[1] = 0;
    t.fiber.reset(*g_stacks[i], &thread_entry, &l, &l.scheduler);
  }
  unsigned exited = 0;
  while (exited < n) {
    bool ran = false;
    exited = 0;
    for (unsigned i = 0; i < n; ++i) {
      ThreadState& t = l.threads[i];
      if (t.wait == Wait::none) {
        l.current = &t;
        t.fiber.resume();
        l.current = nullptr;
        ran = true;
        if (l.error) std::rethrow_exception(l.error);
      }
      if (t.wait == Wait::exited) ++exited;
    }
    if (!ran && exited < n) block_deadlock(l);
  }
  l.stats.blocks += 1;
}

}  // namespace

Options& options() {
  static Options o = [] {
    Options d;
    if (const char* kib = std::getenv("POLYFUSE_EMU_STACK_KIB")) d.fiber_stack_bytes = std::strtoull(kib, nullptr, 10) * 1024;
    return d;
  }();
  return o;
}

void register_buffer(const void* data, std::size_t bytes, std::string name) {
  buffer_registry().add(data, bytes, std::move(name));
}
void unregister_buffer(const void* data) { buffer_registry().remove(data); }

const Stats& last_stats() { return g_last_stats; }

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
                  const std::function<void()>& body) {
  if (g_launch) throw EmulationError("polyfuse emu: nested launch of '" + kernel_name + "'");
  const unsigned n = block.x * block.y * block.z;
  if (n == 0 || n > 1024)
    throw EmulationError("polyfuse emu: kernel '" + kernel_name + "': block of " + std::to_string(n) +
                         " threads (must be 1..1024)");
  Launch l;
  l.kernel = std::move(kernel_name);
  l.grid = grid;
  l.block = block;
  l.shared_bytes = dynamic_shared_bytes;
  l.body = &body;
  l.shared_storage.resize(dynamic_shared_bytes + 128);
  l.shared = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(l.shared_storage.data()) + 127) & ~std::uintptr_t{127});
  l.threads.resize(n);
  const unsigned n_warps = (n + 31) / 32;
  l.warps.resize(n_warps);
  for (unsigned w = 0; w < n_warps; ++w) {
    l.warps[w].first = 32 * w;
    l.warps[w].size = std::min(32u, n - 32 * w);
  }
  for (unsigned i = 0; i < n; ++i) {
    ThreadState& t = l.threads[i];
    t.linear = i;
    t.warp = i / 32;
    t.lane = i % 32;
    t.coords.thread_idx = uint3{i % block.x, (i / block.x) % block.y, i / (block.x * block.y)};
    t.coords.block_dim = block;
    t.coords.grid_dim = grid;
  }
  const std::size_t stack_bytes = options().fiber_stack_bytes;
  if (g_stack_bytes != stack_bytes) {
    g_stacks.clear();
    g_stack_bytes = stack_bytes;
  }
  while (g_stacks.size() < n) g_stacks.push_back(std::make_unique<FiberStack>(stack_bytes));

  buffer_registry().reset_counters();
  g_launch = &l;
  try {
    for (unsigned z = 0; z < grid.z; ++z)
      for (unsigned y = 0; y < grid.y; ++y)
        for (unsigned x = 0; x < grid.x; ++x) {
          l.block_idx = uint3{x, y, z};
          run_block(l);
        }
  } catch (...) {
    g_launch = nullptr;
    throw;
  }
  g_launch = nullptr;
  l.stats.threads = static_cast<std::uint64_t>(n) * l.stats.blocks;
  buffer_registry().collect(l.stats);
  g_last_stats = l.stats;
  return l.stats;
}

namespace detail {
const ThreadCoords& coords() { return current_launch().current->coords; }

void syncthreads(const char* file, unsigned line) {
  Launch& l = current_launch();
  ThreadState* t = l.current;
  if (l.barrier_arrived == 0) {
    l.barrier_file = file;
    l.barrier_line = line;
    l.barrier_first = t->linear;
  } else if (line != l.barrier_line || std::strcmp(file, l.barrier_file) != 0) {
    throw EmulationError("polyfuse emu: barrier divergence in " + where(l, t) + ": reached __syncthreads at " +
                         file + ":" + std::to_string(line) + " while thread " +
                         coord_text(l.threads[l.barrier_first].coords.thread_idx) + " waits at __syncthreads at " +
                         l.barrier_file + ":" + std::to_string(l.barrier_line));
  }
  if (++l.barrier_arrived == l.threads.size()) {
    l.barrier_arrived = 0;
    l.stats.barriers += 1;
    for (WarpState& w : l.warps) flush_warp(l, w);
    for (ThreadState& other : l.threads)
      if (other.wait == Wait::barrier) other.wait = Wait::none;
    return;
  }
  t->wait = Wait::barrier;
  t->fiber.yield();
}
}  // namespace detail

}  // namespace polyfuse::emu

// ---- host hooks (kernels/cuda/host_hooks.h) ----------------------------------------------

namespace pf_host {
using polyfuse::emu::EmulationError;

void access(Space space, Direction direction, const void* address, unsigned bytes) {
  auto& l = polyfuse::emu::current_launch();
  auto* t = l.current;
  const auto addr = reinterpret_cast<std::uintptr_t>(address);
  const char* verb = direction == load ? "load" : "store";
  if (bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16) {
    // The hardware faults on a misaligned vector access ("misaligned address").
    if (addr % bytes != 0) {
      char text[96];
      std::snprintf(text, sizeof text, "%u-byte %s %s at %p (not %u-byte aligned)", bytes,
                    space == global_space ? "global" : "shared", verb, address, bytes);
      throw EmulationError(std::string("polyfuse emu: misaligned ") + text + " in " + polyfuse::emu::where(l, t));
    }
  }
  if (bytes == 0) {
    // A lane that takes part in the instruction with its predicate off: no access, but it
    // keeps the lanes' accesses aligned into warp-wide requests.
  } else if (space == global_space) {
    polyfuse::emu::RegisteredBuffer* b = polyfuse::emu::buffer_registry().find(addr, bytes);
    if (!b) {
      char text[64];
      std::snprintf(text, sizeof text, "%u bytes at %p", bytes, address);
      throw EmulationError(std::string("polyfuse emu: out-of-bounds global ") + verb + " of " + text + " in " +
                           polyfuse::emu::where(l, t) + ": " +
                           polyfuse::emu::buffer_registry().describe_miss(addr, bytes));
    }
    if (direction == load) {
      b->bytes_loaded += bytes;
      l.stats.global_bytes_loaded += bytes;
    } else {
      b->bytes_stored += bytes;
      l.stats.global_bytes_stored += bytes;
    }
  } else {
    const auto base = reinterpret_cast<std::uintptr_t>(l.shared);
    if (addr < base || addr + bytes > base + l.shared_bytes) {
      char text[96];
      std::snprintf(text, sizeof text, "%u bytes at %p (shared offset %lld)", bytes, address,
                    static_cast<long long>(addr - base));
      throw EmulationError(std::string("polyfuse emu: out-of-bounds shared ") + verb + " of " + text + " in " +
                           polyfuse::emu::where(l, t) + ": the launch declared " + std::to_string(l.shared_bytes) +
                           " bytes of dynamic shared memory");
    }
    if (direction == load)
      l.stats.shared_bytes_loaded += bytes;
    else
      l.stats.shared_bytes_stored += bytes;
  }
  l.warps[t->warp].log[space].record(t->sequence[space]++, polyfuse::emu::AccessEntry{addr, bytes, static_cast<unsigned char>(t->lane),
                                                                        static_cast<unsigned char>(space),
                                                                        static_cast<unsigned char>(direction)});
}

const void* warp_exchange(const char* what, const void* mine, unsigned bytes) {
  auto& l = polyfuse::emu::current_launch();
  auto* t = l.current;
  auto& w = l.warps[t->warp];
  if (w.arrived == 0) {
    w.what = what;
    w.bytes = bytes;
  } else if (bytes != w.bytes || std::strcmp(what, w.what) != 0) {
    throw EmulationError(std::string("polyfuse emu: warp divergence in ") + polyfuse::emu::where(l, t) + ": lane " +
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
    polyfuse::emu::flush_warp(l, w);
    for (unsigned i = 0; i < w.size; ++i) {
      auto& other = l.threads[w.first + i];
      if (other.wait == polyfuse::emu::Wait::warp) other.wait = polyfuse::emu::Wait::none;
    }
  } else {
    t->wait = polyfuse::emu::Wait::warp;
    t->fiber.yield();
  }
  return deposits.data();
}

unsigned lane_id() { return polyfuse::emu::current_launch().current->lane; }
unsigned warp_id() { return polyfuse::emu::current_launch().current->warp; }
unsigned char* dynamic_shared() { return polyfuse::emu::current_launch().shared; }
unsigned long long dynamic_shared_bytes() { return polyfuse::emu::current_launch().shared_bytes; }

}  // namespace pf_host
