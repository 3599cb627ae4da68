// The CUDA device the GPU tests run on.
#pragma once

#include <cuda_runtime.h>

#include <string>

namespace pft_test {

// The first CUDA device's architecture ("sm_90"), or "" when there is no device.
inline std::string cuda_device_arch() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return {};
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return {};
  return "sm_" + std::to_string(prop.major * 10 + prop.minor);
}

}  // namespace pft_test
