#include "polyfuse/device.h"

#include <utility>

#include "polyfuse/errors.h"

#if POLYFUSE_HAVE_CUDA
#include "runtime/cuda/driver.h"
#include "runtime/cuda/kernel_cache.h"
#include "runtime/cuda/nvrtc_compiler.h"
#endif

namespace polyfuse {

#if POLYFUSE_HAVE_CUDA

bool cuda_device_available() { return cuda::driver() != nullptr; }

std::string cuda_device_description() { return cuda::device_description(); }

Arch default_arch() {
  const std::optional<int> cc = cuda::device_compute_capability();
  if (cc == 90) return Arch::sm_90a;  // H100/H200: the TMA + wgmma main loop
  if (!cc || *cc > 90) return Arch::sm_90;  // newer GPUs JIT-compile sm_90's PTX (sm_90a's is not portable)
  if (*cc >= 89) return Arch::sm_89;
  if (*cc >= 86) return Arch::sm_86;
  return Arch::sm_80;
}

std::string nvrtc_version() { return cuda::nvrtc_version(); }

std::string cache_directory() {
  const cuda::CacheConfig& config = cuda::KernelCache::global().config();
  return config.enabled ? config.root.string() : "";
}

void clear_memory_cache() { cuda::KernelCache::global().clear_memory(); }

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  const cuda::DriverApi& api = cuda::require_driver();
  cuda::ensure_context();
  CUdeviceptr pointer = 0;
  cuda::check(api.mem_alloc(&pointer, bytes == 0 ? 1 : bytes), "cuMemAlloc");
  data_ = reinterpret_cast<void*>(pointer);
}

DeviceBuffer::~DeviceBuffer() {
  if (const cuda::DriverApi* api = cuda::driver(); api && data_) api->mem_free(reinterpret_cast<CUdeviceptr>(data_));
}

void DeviceBuffer::upload(const void* host, std::size_t bytes) {
  if (bytes > bytes_) throw ArgumentError("polyfuse: upload of " + std::to_string(bytes) + " bytes into a buffer of " + std::to_string(bytes_));
  cuda::ensure_context();
  cuda::check(cuda::require_driver().memcpy_htod(reinterpret_cast<CUdeviceptr>(data_), host, bytes), "cuMemcpyHtoD");
}

void DeviceBuffer::download(void* host, std::size_t bytes) const {
  if (bytes > bytes_) throw ArgumentError("polyfuse: download of " + std::to_string(bytes) + " bytes from a buffer of " + std::to_string(bytes_));
  cuda::ensure_context();
  cuda::check(cuda::require_driver().memcpy_dtoh(host, reinterpret_cast<CUdeviceptr>(data_), bytes), "cuMemcpyDtoH");
}

void synchronize(void* stream) {
  const cuda::DriverApi& api = cuda::require_driver();
  cuda::ensure_context();
  if (stream)
    cuda::check(api.stream_synchronize(static_cast<CUstream>(stream)), "cuStreamSynchronize");
  else
    cuda::check(api.ctx_synchronize(), "cuCtxSynchronize");
}

#else  // built without the CUDA toolkit: the emulator backend only

bool cuda_device_available() { return false; }
std::string cuda_device_description() { return "no CUDA device: polyfuse was built without the CUDA toolkit"; }
Arch default_arch() { return Arch::sm_90; }
std::string nvrtc_version() { return ""; }
std::string cache_directory() { return ""; }
void clear_memory_cache() {}
DeviceBuffer::DeviceBuffer(std::size_t) { throw NoDeviceError(cuda_device_description()); }
DeviceBuffer::~DeviceBuffer() = default;
void DeviceBuffer::upload(const void*, std::size_t) { throw NoDeviceError(cuda_device_description()); }
void DeviceBuffer::download(void*, std::size_t) const { throw NoDeviceError(cuda_device_description()); }
void synchronize(void*) { throw NoDeviceError(cuda_device_description()); }

#endif

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    DeviceBuffer old(std::move(*this));
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

}  // namespace polyfuse
