// A kernel compiled for one backend: its CUDA source, PTX and cubin (cuda backend), its
// launch configuration, and launch().
//
//   polyfuse::CompiledKernel k = program.compile();
//   k.launch({d_A, d_B, d_C}, stream);   // asynchronous on `stream` (cuda backend)
#pragma once

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
  // The generated CUDA source (the same text for both backends).
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
  // Where the cubin came from.
  CacheStatus cache_status() const;

  // Launches the kernel with one Arg per parameter in signature order: one pointer per
  // tensor, then (optionally, else taken from the bound sizes) one value per size
  // parameter. cuda backend: device pointers, asynchronous on `stream` (a CUstream or
  // cudaStream_t; nullptr: the default stream) in the current context, else device 0's
  // primary context. emu backend: host pointers; runs to completion, `stream` ignored.
  // Returns the emulator's counters of this launch (none on a GPU).
  // Throws ArgumentError (count, sizes), NoDeviceError, CudaError, EmulatorError.
  LaunchStats launch(const std::vector<Arg>& args, void* stream = nullptr) const;
  LaunchStats launch(std::initializer_list<Arg> args, void* stream = nullptr) const {
    return launch(std::vector<Arg>(args), stream);
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
