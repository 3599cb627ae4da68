// polyfuse::emu — runs CUDA kernels on the CPU (see cuda_emulation.h for the dialect).
//
// Blocks run one after another; the threads of a block are fibers with real barriers;
// warp-collective helpers rendezvous the lanes of a warp. Global accesses made through the
// kernels/cuda helpers must fall inside a registered buffer, shared accesses inside the
// launch's dynamic shared memory; a bad access, a divergent barrier or a deadlock throws
// EmulationError naming the kernel, block, thread (and address and buffer).
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

// A kernel misbehaved (bad access, barrier divergence, deadlock) or could not be built.
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
  std::uint64_t blocks = 0;
  std::uint64_t threads = 0;
  std::vector<BufferStats> buffers;        // registered buffers touched, in address order

  // "stats: global_bytes_loaded=N global_bytes_stored=N shared_bank_conflicts=N"
  std::string summary() const;
  // Every counter, one per line (for logs).
  std::string details() const;
  // Counters of the buffer registered under `name`, or nullptr.
  const BufferStats* buffer(std::string_view name) const;
};

struct Options {
  std::size_t fiber_stack_bytes = 256 * 1024;  // per CUDA thread; env POLYFUSE_EMU_STACK_KIB
  bool poison_shared = true;                   // fill shared memory with 0xff before each block
};
Options& options();

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

// Runs `body` (one CUDA thread's work; called once per thread) over the grid.
Stats launch_body(std::string kernel_name, dim3 grid, dim3 block, std::size_t dynamic_shared_bytes,
                  const std::function<void()>& body);

// Stats of the most recent launch on this host thread.
const Stats& last_stats();

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

}  // namespace polyfuse::emu
