// A problem's tensors in device memory, shared by every variant, plus the scratch
// buffers the unfused baselines write (relu(A), the two GEMM results of Add(GEMM, GEMM)).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/gpu/cuda_util.h"
#include "bench/gpu/host_reference.h"

namespace polyfuse::bench {

// Device buffers of one problem; they are freed (cudaFree) when it is destroyed.
class DeviceProblem {
 public:
  // Allocates every tensor of `host` and uploads the inputs' 16-bit patterns (and the
  // scratch buffers of `idiom`'s baselines).
  DeviceProblem(const Idiom& idiom, const HostProblem& host);
  // The same without scratch buffers (the convolutions').
  explicit DeviceProblem(const HostProblem& host);

  // The device pointer of tensor `name` (A, B, E, F, bias, D; I, F, bias, O) or scratch buffer
  // ("relu_A", "C1", "C2"). Throws std::out_of_range for an unknown name.
  void* pointer(const std::string& name) const;
  // Elements of the output (D, or a convolution's O).
  std::int64_t output_elements() const { return output_elements_; }
  // Fills the output with 0xFF bytes (NaN in f16 and bf16), so a variant that does not write every
  // element fails its check.
  void poison_output(cudaStream_t stream);
  // Copies the output to the host (synchronous).
  std::vector<std::uint16_t> download_output() const;

 private:
  std::map<std::string, DeviceMemory> buffers_;  // tensors and scratch buffers by name
  std::string output_;  // the output tensor's name
  std::int64_t output_elements_ = 0;
};

}  // namespace polyfuse::bench
