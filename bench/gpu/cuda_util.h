// Small CUDA runtime helpers of polyfuse-bench: status checks that throw, device memory
// and streams as RAII values, and the two exception kinds of a run.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace polyfuse::bench {

// A library or CUDA failure that ends the run (the message names the call).
class BenchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A library does not support this problem (e.g. no cuBLASLt algorithm, a cuDNN data type
// it rejects): the variant is reported as not measured and the run goes on.
class Unsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws BenchError("<call>: <cudaGetErrorString>") unless `status` is cudaSuccess.
void check_cuda(cudaError_t status, const char* call);

// Device memory from cudaMalloc, freed on destruction.
class DeviceMemory {
 public:
  // No memory.
  DeviceMemory() = default;
  // cudaMalloc of `bytes` (throws BenchError).
  explicit DeviceMemory(std::size_t bytes);
  ~DeviceMemory();
  DeviceMemory(DeviceMemory&& other) noexcept;
  DeviceMemory& operator=(DeviceMemory&& other) noexcept;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // The device address and the size in bytes.
  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  // Synchronous copies of `bytes` (at most bytes()) from / to the host.
  void upload(const void* host, std::size_t bytes);
  void download(void* host, std::size_t bytes) const;

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// A non-blocking CUDA stream, destroyed with its owner.
class Stream {
 public:
  // cudaStreamCreateWithFlags(cudaStreamNonBlocking) (throws BenchError).
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  // The stream handle.
  cudaStream_t get() const { return stream_; }
  // cudaStreamSynchronize, checked.
  void synchronize() const;

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace polyfuse::bench
