// A def compiled for one backend: its CUDA source, PTX and cubin (cuda backend), its
// launch configuration, and launch().
//
//   polyfuse::CompiledKernel k = program.compile();
//   k.launch({d_A, d_B, d_C}, stream);   // asynchronous on `stream` (cuda backend)
//
// Plans. A def the fusion planner splits into several kernels (`polyfuse compile
// --emit=plan`: softmax, layer norm, a matmul whose output is reduced and used again) is a
// CompiledKernel too, launched the same way: one Arg per tensor of the def in signature
// order (then, optionally, the sizes), and it runs its kernels in order on the one stream,
// the temporaries between them in a workspace of workspace_bytes(). One class rather than a
// sibling: every caller launches a def without asking how many kernels it became, and the
// few facts that differ (kernel_count(), kernels(), plan(), workspace_bytes()) are plain
// queries. A plan's info() is the def's signature (named after the plan's host launcher, grid
// and block 1: each kernel has its own in kernels()), its ptx() and cubin() are empty (each
// kernel's are in kernels()), and its metadata_json() is the sidecar of `polyfuse compile`:
// every kernel, then the plan's entry with "workspace_bytes" and the temporaries.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "polyfuse/arguments.h"
#include "polyfuse/kernel_info.h"
#include "polyfuse/launch_stats.h"
#include "polyfuse/options.h"

namespace polyfuse {

// How the cubin of a compile was obtained.
enum class CacheStatus {
  disabled,         // the cache is off (option or POLYFUSE_DISABLE_CACHE=1), or emu backend
  miss,             // compiled by NVRTC, then stored
  memory_hit,       // found in this process
  disk_hit,         // read from the disk cache (checksum verified)
  rebuilt_corrupt,  // the disk entry was truncated or corrupt: compiled again and replaced
};
// "miss", "memory_hit", ...
std::string to_string(CacheStatus status);

class CompiledKernel {
 public:
  // The backend it was compiled for.
  Backend backend() const;
  // The generated CUDA source (the same text for both backends); a plan's: every kernel and
  // the plan's host launcher.
  const std::string& source() const;
  // PTX and cubin from NVRTC (cuda backend; empty for emu).
  const std::string& ptx() const;
  const std::vector<char>& cubin() const;
  // The compiler's log (NVRTC warnings; usually empty).
  const std::string& log() const;
  // Signature and launch configuration.
  const KernelInfo& info() const;
  // The same as the JSON sidecar of `polyfuse compile`.
  std::string metadata_json() const;
  // Where the cubin came from (a plan: its first kernel's).
  CacheStatus cache_status() const;

  // How many kernels one launch runs: 1, or the plan's kernels.
  std::size_t kernel_count() const;
  // The kernels in launch order: this one, or the plan's (each launched on the plan's
  // temporaries; use them to inspect a plan's kernels, launch the plan itself).
  std::vector<CompiledKernel> kernels() const;
  // The partition of the def into kernels and why each cut was made: the text of `polyfuse
  // compile --emit=plan` (also for a def that is one kernel).
  const std::string& plan() const;
  // Bytes of the workspace a launch needs for the plan's temporaries (0 for one kernel).
  std::int64_t workspace_bytes() const;

  // Launches the kernel with one Arg per parameter in signature order: one pointer per
  // tensor, then (optionally, else taken from the bound sizes) one value per size
  // parameter. cuda backend: device pointers, asynchronous on `stream` (a CUstream or
  // cudaStream_t; nullptr: the default stream) in the current context, else device 0's
  // primary context. emu backend: host pointers; runs to completion, `stream` ignored.
  // Returns the emulator's counters of this launch (none on a GPU; a plan's: every
  // kernel's added). A plan uses `workspace` (at least workspace_bytes(), 256-byte aligned,
  // device memory on cuda, host memory on emu; the caller keeps it alive until the stream
  // has finished), or, when it is nullptr, its own: on cuda one device buffer allocated at the
  // first launch and reused, so launches of one plan on different streams must not overlap
  // unless each passes its own workspace; on emu a host buffer per launch.
  // Throws ArgumentError (count, sizes), NoDeviceError, CudaError, EmulatorError.
  LaunchStats launch(const std::vector<Arg>& args, void* stream = nullptr, void* workspace = nullptr) const;
  // Backend::cpu with CompileOptions::constant_inputs: the values behind a constant input's
  // pointer changed; the next launch packs them again. Nothing to do for other kernels.
  void forget_constants() const;
  LaunchStats launch(std::initializer_list<Arg> args, void* stream = nullptr, void* workspace = nullptr) const {
    return launch(std::vector<Arg>(args), stream, workspace);
  }

  // Runs the kernel on host buffers with either backend and waits for it: for cuda, the
  // tensors are copied to device memory, the kernel launched, and the outputs copied
  // back; for emu, the same as launch(). Tensor arguments must carry their byte size
  // (std::vectors or Arg::buffer). The simplest way to run a kernel once. Returns the
  // emulator's counters (none on a GPU).
  LaunchStats run_on_host(const std::vector<Arg>& args) const;
  LaunchStats run_on_host(std::initializer_list<Arg> args) const { return run_on_host(std::vector<Arg>(args)); }

  struct Impl;
  explicit CompiledKernel(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<const Impl> impl_;
};

}  // namespace polyfuse
