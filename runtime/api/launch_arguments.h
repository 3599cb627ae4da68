// Checks launch arguments against a kernel's signature and works out what a launch
// needs: the value of every parameter, the bytes of every tensor, grid and block.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "codegen/launch_metadata.h"
#include "polyfuse/arguments.h"

namespace polyfuse::api {

// One parameter's value.
struct ParameterValue {
  bool is_pointer = true;
  const void* pointer = nullptr;
  std::int32_t value = 0;            // size parameters
  std::uint64_t required_bytes = 0;  // tensors: what the kernel may touch
  std::uint64_t given_bytes = 0;     // tensors: the Arg's size (0: unknown)
  std::vector<std::uint64_t> extents;  // tensors: each dimension's extent, outermost first
};

struct PreparedLaunch {
  std::vector<ParameterValue> values;  // signature order
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  int dynamic_shared_bytes = 0;
};

// The signature for messages: "gemm(const __half* A, const __half* B, __half* C, int M)".
std::string signature_text(const LaunchMetadata& metadata);

// Checks `args` (one per tensor parameter, optionally followed by one per size parameter)
// against `metadata` with the compile-time `bound` sizes. Throws ArgumentError for a
// wrong count, a size value given for a tensor or the reverse, a null pointer, a buffer
// smaller than its tensor, a const buffer for an output, a size value out of range or
// different from a bound one, or a grid that evaluates to zero.
PreparedLaunch prepare_launch(const LaunchMetadata& metadata, const std::map<std::string, std::int64_t>& bound,
                              const std::vector<Arg>& args);

}  // namespace polyfuse::api
