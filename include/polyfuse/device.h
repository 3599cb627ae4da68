// The CUDA device (through the driver API, loaded with dlopen at first use so that
// programs run on machines without a driver), device buffers, NVRTC and cache facts.
#pragma once

#include <cstddef>
#include <string>

#include "polyfuse/gpu_target.h"

namespace polyfuse {

// True when libcuda.so.1 loads and reports at least one device.
bool cuda_device_available();
// "NVIDIA H100 80GB HBM3 (sm_90)", or the reason there is none ("no CUDA device: ...").
std::string cuda_device_description();
// The present GPU's architecture, else sm_90: sm_90a on compute capability 9.0 (H100, H200),
// whose kernels may use wgmma; newer GPUs map to sm_90 (their driver JIT-compiles the PTX,
// which sm_90a's architecture-specific code is not).
Arch default_arch();
// The NVRTC version in use, e.g. "13.0" ("" when built without the CUDA toolkit).
std::string nvrtc_version();
// The disk cache directory in use, or "" when the cache is disabled.
std::string cache_directory();
// Forgets the kernels cached in this process (the disk cache stays).
void clear_memory_cache();

// Device memory of the current context (device 0's primary context if none).
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes);  // throws NoDeviceError, CudaError
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  // Synchronous copies of `bytes` (at most bytes()) from/to host memory.
  void upload(const void* host, std::size_t bytes);
  void download(void* host, std::size_t bytes) const;

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Waits for `stream` (nullptr: the whole context).
void synchronize(void* stream = nullptr);

}  // namespace polyfuse
