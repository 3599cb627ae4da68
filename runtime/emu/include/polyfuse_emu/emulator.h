// polyfuse::emu — runs CUDA kernels on the CPU (see cuda_emulation.h for the dialect).
//
// Blocks run one after another; the threads of a block are fibers with real barriers,
// interleaved by a seeded schedule (Options::schedule); warp-collective helpers rendezvous
// the lanes of a warp. Every access made through the kernels/cuda helpers is checked, and a
// violation throws EmulationError naming the kernel, block, thread(s), address and what
// conflicted (with the source line of each access when the kernel has line information):
//   * bounds: global accesses inside a registered buffer, shared ones inside the launch's
//     dynamic shared memory; alignment of every vector access and cp.async to its size
//     (zero-fill cp.async included; a predicated-off access is not executed, not checked);
//   * cp.async (PTX ISA 9.7.9.25): the data lands in shared memory at the cp.async.wait_group
//     / wait_all of the issuing thread that covers its group (random policy: possibly at a
//     random point before); any access to the destination before that wait is an error;
//     copies still pending when their thread exits are dropped (nothing may read them);
//   * shared-memory races (compute-sanitizer racecheck's model, per byte): a read-after-write,
//     write-after-read or write-after-write between two threads with no __syncthreads between
//     them — or, for two lanes of one warp, no warp collective (__syncwarp, shuffles,
//     ldmatrix, mma) — a completed cp.async counting as a write of its thread at its wait;
//   * global-memory races between blocks (no order exists between the blocks of a launch):
//     a block writing bytes that another block wrote or read in the same launch, or reading
//     bytes another block wrote, unless both are atomics (races within a block are not
//     checked in global memory);
//   * divergent barriers, warp collectives and deadlocks.
// Not modelled: plain C++ dereferences and __shared__ variables (unchecked), writes to the
// source of a pending cp.async, memory fences.
//
//   polyfuse::emu::ScopedBuffer a(A.data(), A.size() * 2, "A");
//   polyfuse::emu::Stats s = polyfuse::emu::launch(my_kernel, dim3(4), dim3(128), 16384, A.data(), n);
//   std::puts(s.summary().c_str());   // stats: global_bytes_loaded=... 
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "polyfuse_emu/cuda_types.h"

namespace polyfuse::emu {

// A kernel misbehaved (bad access, race, early read of a cp.async destination, barrier
// divergence, deadlock) or could not be built. Errors raised under a schedule other than
// round_robin end with "[schedule random:SEED]" (set it again to repeat the run).
class EmulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bytes moved to/from one registered buffer during a launch.
struct BufferStats {
  std::string name;
  std::uint64_t bytes_loaded = 0;
  std::uint64_t bytes_stored = 0;
};

// Counters of one launch. A "request" is one warp-wide access (the lanes' k-th access
// between two synchronisation points of the warp).
struct Stats {
  std::uint64_t global_bytes_loaded = 0;
  std::uint64_t global_bytes_stored = 0;
  std::uint64_t global_requests = 0;
  std::uint64_t global_sectors = 0;        // distinct 32-byte sectors, summed over requests
  std::uint64_t shared_bytes_loaded = 0;
  std::uint64_t shared_bytes_stored = 0;
  std::uint64_t shared_accesses = 0;       // warp-wide shared requests (ldmatrix included)
  std::uint64_t shared_wavefronts = 0;
  std::uint64_t shared_bank_conflicts = 0; // wavefronts beyond the minimum
  std::uint64_t warp_collectives = 0;
  std::uint64_t barriers = 0;
  std::uint64_t async_copies = 0;          // cp.async operations issued
  std::uint64_t tma_loads = 0;             // cp.async.bulk.tensor global -> shared (boxes)
  std::uint64_t tma_stores = 0;            // cp.async.bulk.tensor shared -> global (boxes)
  std::uint64_t tma_bytes = 0;             // bytes of the boxes TMA moved (loads + stores)
  std::uint64_t wgmma_instructions = 0;    // wgmma.mma_async issued (one per warpgroup)
  std::uint64_t blocks = 0;
  std::uint64_t threads = 0;
  std::vector<BufferStats> buffers;        // registered buffers touched, in address order

  // "stats: global_bytes_loaded=N global_bytes_stored=N shared_bank_conflicts=N"
  std::string summary() const;
  // Every counter by name, in a fixed order (the buffers apart).
  std::vector<std::pair<std::string, std::uint64_t>> counters() const;
  // Every counter, one per line (for logs).
  std::string details() const;
  // Counters of the buffer registered under `name`, or nullptr.
  const BufferStats* buffer(std::string_view name) const;
};

// How the threads of a block are interleaved. Threads switch only where the emulator is
// called (memory accesses, barriers, warp collectives, cp.async operations).
//   round_robin  threads 0, 1, 2, ... in turn, each until it waits (barrier, collective)
//   random       a seeded random runnable thread runs next; a thread is also preempted at
//                about one memory access in eight, and a pending cp.async may land early
//   warp_ahead   a seeded random warp runs alone until it waits at __syncthreads (or
//                exits), then the others in turn; a new warp is drawn after each barrier
// The seed and the block index decide every choice: a failure repeats with the same schedule.
enum class ScheduleKind { round_robin, random, warp_ahead };
struct Schedule {
  ScheduleKind kind = ScheduleKind::round_robin;
  std::uint64_t seed = 1;
};
// Parses "round_robin", "random[:SEED]" or "warp_ahead[:SEED]"; throws EmulationError.
Schedule parse_schedule(std::string_view text);
// "round_robin", "random:7", "warp_ahead:3".
std::string to_string(const Schedule& schedule);

struct Options {
  std::size_t fiber_stack_bytes = 256 * 1024;  // per CUDA thread; env POLYFUSE_EMU_STACK_KIB
  bool poison_shared = true;                   // fill shared memory with 0xff before each block
  Schedule schedule;                           // env POLYFUSE_EMU_SCHEDULE (parse_schedule)
  bool race_check = true;                      // shared and global race detection;
                                               // env POLYFUSE_EMU_RACECHECK=0 turns it off
  // The SMs of the emulated device: a persistent kernel's launch (LaunchMetadata::persistent)
  // has min(sm_count, its tiles) blocks. 132: an H100 SXM.
  unsigned sm_count = 132;
  // Called after each block of a launch with the blocks done and the grid's blocks (a
  // long launch's progress); empty: not called.
  std::function<void(std::uint64_t done, std::uint64_t blocks)> progress;
};
Options& options();

// Sets options().schedule for its lifetime.
class ScopedSchedule {
 public:
  explicit ScopedSchedule(Schedule schedule) : saved_(options().schedule) { options().schedule = schedule; }
  ~ScopedSchedule() { options().schedule = saved_; }
  ScopedSchedule(const ScopedSchedule&) = delete;
  ScopedSchedule& operator=(const ScopedSchedule&) = delete;

 private:
  Schedule saved_;
};

// Global buffers: every global access of a kernel must fall inside one of these.
void register_buffer(const void* data, std::size_t bytes, std::string name);
void unregister_buffer(const void* data);
class ScopedBuffer {
 public:
  ScopedBuffer(const void* data, std::size_t bytes, std::string name) : data_(data) {
    register_buffer(data, bytes, std::move(name));
  }
  ~ScopedBuffer() { unregister_buffer(data_); }
  ScopedBuffer(const ScopedBuffer&) = delete;
  ScopedBuffer& operator=(const ScopedBuffer&) = delete;

 private:
  const void* data_;
};

// Runs `body` (one CUDA thread's work; called once per thread) over the grid, in thread-block
// clusters of `cluster` blocks (CUDA's cluster dimension attribute; the grid a multiple of it,
// at most 8 blocks and, in the emulator, 1024 threads a cluster). The blocks of a cluster run
// together — their threads interleave, each block with its own dynamic shared memory — and
// reach each other's shared memory through the cluster operations (mapa addresses, TMA
// multicast, remote mbarrier arrives, barrier.cluster: kernels/cuda/pf_cluster.cuh), checked
// like the rest: bounds, a remote operation into a block that has exited or whose exit nothing
// orders after it (a missing barrier.cluster before the exit), races through the sync clocks.
Stats launch_body(std::string kernel_name, dim3 grid, dim3 block, std::size_t dynamic_shared_bytes,
                  const std::function<void()>& body, dim3 cluster = dim3(1, 1, 1));


// Name of the function at `address` (its symbol, demangled), or "kernel@0x...".
std::string symbol_name(const void* address);

// Launches a kernel compiled into this program: launch(k, grid, block, smem, args...).
template <class... P, class... A>
Stats launch_named(std::string name, void (*kernel)(P...), dim3 grid, dim3 block, std::size_t dynamic_shared_bytes,
                   A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "kernel argument count does not match its parameters");
  const std::tuple<std::decay_t<P>...> values(std::forward<A>(args)...);
  return launch_body(std::move(name), grid, block, dynamic_shared_bytes, [&] { std::apply(kernel, values); });
}
template <class... P, class... A>
Stats launch(void (*kernel)(P...), dim3 grid, dim3 block, std::size_t dynamic_shared_bytes, A&&... args) {
  return launch_named(symbol_name(reinterpret_cast<const void*>(kernel)), kernel, grid, block,
                      dynamic_shared_bytes, std::forward<A>(args)...);
}
// launch() in clusters of `cluster` blocks (cudaLaunchKernelEx with cudaLaunchAttributeClusterDimension).
template <class... P, class... A>
Stats launch_clusters(void (*kernel)(P...), dim3 grid, dim3 cluster, dim3 block, std::size_t dynamic_shared_bytes,
                      A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "kernel argument count does not match its parameters");
  const std::tuple<std::decay_t<P>...> values(std::forward<A>(args)...);
  return launch_body(symbol_name(reinterpret_cast<const void*>(kernel)), grid, block, dynamic_shared_bytes,
                     [&] { std::apply(kernel, values); }, cluster);
}

}  // namespace polyfuse::emu
