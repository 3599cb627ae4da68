#include "bench/gpu/device_problem.h"

namespace polyfuse::bench {

DeviceProblem::DeviceProblem(const HostProblem& host) {
  for (const TensorSpec& spec : host.tensors) {
    const std::size_t bytes = static_cast<std::size_t>(spec.elements()) * 2;
    DeviceMemory memory(bytes);
    if (spec.output) {
      output_ = spec.name;
      output_elements_ = spec.elements();
    } else {
      memory.upload(host.bits.at(spec.name).data(), bytes);
    }
    buffers_.emplace(spec.name, std::move(memory));
  }
  // cudaMemcpy from pageable memory may return before its DMA is done, and the benchmark's
  // stream does not synchronise with the legacy default stream.
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (after the uploads)");
}

DeviceProblem::DeviceProblem(const Idiom& idiom, const HostProblem& host) : DeviceProblem(host) {
  std::int64_t a_elements = 0;
  for (const TensorSpec& spec : host.tensors)
    if (spec.name == "A") a_elements = spec.elements();
  if (idiom.relu_prologue) buffers_.emplace("relu_A", DeviceMemory(static_cast<std::size_t>(a_elements) * 2));
  if (idiom.row != RowOp::none)  // the baselines' GEMM output, before the row kernel
    buffers_.emplace("C1", DeviceMemory(static_cast<std::size_t>(output_elements_) * 2));
  if (idiom.second_matmul || idiom.gated) {
    buffers_.emplace("C1", DeviceMemory(static_cast<std::size_t>(output_elements_) * 2));
    buffers_.emplace("C2", DeviceMemory(static_cast<std::size_t>(output_elements_) * 2));
  }
}

void* DeviceProblem::pointer(const std::string& name) const { return buffers_.at(name).data(); }

void DeviceProblem::poison_output(cudaStream_t stream) {
  check_cuda(cudaMemsetAsync(pointer(output_), 0xFF, static_cast<std::size_t>(output_elements_) * 2, stream),
             "cudaMemsetAsync (poison the output)");
}

std::vector<std::uint16_t> DeviceProblem::download_output() const {
  std::vector<std::uint16_t> bits(static_cast<std::size_t>(output_elements_));
  buffers_.at(output_).download(bits.data(), bits.size() * 2);
  return bits;
}

}  // namespace polyfuse::bench
