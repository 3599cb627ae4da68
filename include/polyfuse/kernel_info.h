// What a compiled kernel takes and how it is launched: its parameters in signature
// order (tensors, then unbound sizes), grid, block and dynamic shared memory.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace polyfuse {

// One kernel parameter.
struct ParameterInfo {
  enum class Kind { input, output, size };
  std::string name;                // tensor or size name, as in the .tc def
  Kind kind = Kind::input;
  std::string element;             // "f16", "bf16", "f32" (tensors only)
  std::vector<std::string> shape;  // each dimension: a number, or a size name left unbound
  std::string c_type;              // "const __half*", "float*", "int"
  std::int64_t element_bytes = 0;  // 2 or 4 (tensors only)
};

// Launch configuration and signature of one kernel.
struct KernelInfo {
  std::string name;                        // the extern "C" __global__ function
  std::string arch;                        // "sm_90"
  std::vector<ParameterInfo> parameters;   // signature order
  std::array<std::int64_t, 3> grid{};      // 0 where it depends on an unbound size
  std::array<std::string, 3> grid_expressions;  // C expressions over the size parameters
  std::array<int, 3> block{1, 1, 1};
  int dynamic_shared_bytes = 0;
  std::string options;                     // the tile options, for people
};

}  // namespace polyfuse
