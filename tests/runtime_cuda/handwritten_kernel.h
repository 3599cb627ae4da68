// A small hand-written kernel in the form the CUDA emitter produces (the helper
// amalgamation, one extern "C" __global__ kernel) with its launch metadata, so that the
// runtime is tested independently of the code generator.
//
//   y = relu(2 * x) over n f16 elements, 8 per thread, 32 threads per block.
#pragma once

#include <string>

#include "codegen/launch_metadata.h"
#include "polyfuse/cuda_helpers_embedded.h"

namespace pf_runtime_test {

// `variant` goes into a comment, to get distinct cache keys.
inline std::string scale_relu_source(const std::string& variant = "") {
  return std::string(polyfuse::cuda_helpers::amalgamation()) + R"(
// test kernel )" + variant + R"(
extern "C" __global__ void scale_relu(const __half* __restrict__ x, __half* __restrict__ y, int n) {
  const int i = 8 * (blockIdx.x * blockDim.x + threadIdx.x);
  pf::Chunk16 c = pf::ldg128_pred(x + i, i < n);
  for (int e = 0; e < 8; ++e) pf::chunk_set<__half>(c, e, pf::op::relu(2.0f * pf::chunk_get<__half>(c, e)));
  pf::stg128_pred(y + i, c, i < n);
}
)";
}

// Metadata of scale_relu: n unbound, grid n / 256.
inline polyfuse::LaunchMetadata scale_relu_metadata(const std::string& arch = "sm_90") {
  using polyfuse::KernelParameter;
  polyfuse::LaunchMetadata m;
  m.kernel = "scale_relu";
  m.launcher = "polyfuse_launch_scale_relu";
  m.arch = arch;
  m.parameters = {
      {"x", KernelParameter::Kind::input, polyfuse::ElementType::f16, {"n"}, "const __half*", {}},
      {"y", KernelParameter::Kind::output, polyfuse::ElementType::f16, {"n"}, "__half*", {}},
      {"n", KernelParameter::Kind::size, polyfuse::ElementType::f32, {}, "int", {}},
  };
  m.grid[0] = {0, "(n + 255) / 256"};
  m.grid[1] = {1, "1"};
  m.grid[2] = {1, "1"};
  m.block[0] = 32;
  m.dynamic_shared_bytes = 0;
  m.options = "hand-written";
  return m;
}

}  // namespace pf_runtime_test
