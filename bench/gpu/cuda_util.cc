#include "bench/gpu/cuda_util.h"

#include <utility>

namespace polyfuse::bench {

void check_cuda(cudaError_t status, const char* call) {
  if (status != cudaSuccess)
    throw BenchError(std::string(call) + ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

DeviceMemory::DeviceMemory(std::size_t bytes) : bytes_(bytes) {
  check_cuda(cudaMalloc(&data_, bytes == 0 ? 1 : bytes), "cudaMalloc");
}

DeviceMemory::~DeviceMemory() {
  if (data_) cudaFree(data_);
}

DeviceMemory::DeviceMemory(DeviceMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceMemory& DeviceMemory::operator=(DeviceMemory&& other) noexcept {
  if (this != &other) {
    if (data_) cudaFree(data_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceMemory::upload(const void* host, std::size_t bytes) {
  check_cuda(cudaMemcpy(data_, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy (upload)");
}

void DeviceMemory::download(void* host, std::size_t bytes) const {
  check_cuda(cudaMemcpy(host, data_, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (download)");
}

Stream::Stream() { check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"); }

Stream::~Stream() {
  if (stream_) cudaStreamDestroy(stream_);
}

void Stream::synchronize() const { check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

}  // namespace polyfuse::bench
