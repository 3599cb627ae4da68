// What a launcher needs to know about a generated kernel: its parameters in signature
// order, the grid and block, and the dynamic shared memory. Written next to the `.cu`
// as a JSON sidecar (`polyfuse compile -o out.cu` writes out.json).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/element_type.h"

namespace polyfuse {

// One kernel parameter.
struct KernelParameter {
  enum class Kind { input, output, size };
  std::string name;                 // tensor or size name
  Kind kind = Kind::input;
  ElementType element = ElementType::f32;  // tensors only
  std::vector<std::string> shape;   // tensors only: each dim's size (a value or a size name)
  std::string c_type;               // "const __half*", "__half*", "int"
  // An input the kernel reads by TMA (the sm_90a main loop): it takes a CUtensorMap of the
  // 2-d tensor (dimension 0 the contiguous one, 128-byte swizzle) with boxes of
  // tma_box[0] x tma_box[1] elements in place of the pointer; the runtime encodes it from
  // the pointer and the shape at launch. Empty: the pointer.
  std::vector<int> tma_box;
};

// A grid dimension: its value when every size is bound, and its C expression over the
// size parameters (e.g. "(M + 127) / 128") in any case.
// CUDA's limits on gridDim.x, .y, .z (every architecture polyfuse targets).
inline constexpr std::int64_t max_grid_dimension[3] = {2147483647, 65535, 65535};

struct GridDimension {
  std::int64_t value = 0;           // 0 when it depends on an unbound size
  std::string expression;
};

// Launch configuration and signature of one kernel.
struct LaunchMetadata {
  std::string kernel;               // the extern "C" __global__ function's name
  std::string launcher;             // the host launcher's name: polyfuse_launch_<def>
  std::string arch;                 // "sm_90"
  std::vector<KernelParameter> parameters;  // signature order: inputs, outputs, then sizes
  GridDimension grid[3];            // x, y, z
  int block[3] = {1, 1, 1};         // x, y, z threads
  int dynamic_shared_bytes = 0;
  std::string options;              // the tile options, e.g. "block 128x128x32 warp 64x64x32 ..."
  // A persistent kernel (the sm_90a tile scheduler): its blocks walk grid[0] tiles, and the
  // launch has min(the device's SM count, grid[0]) blocks along x (persistent_grid).
  bool persistent = false;
  // Blocks per thread-block cluster along x (the sm_90a kernel's --cluster: 2; 1 without): the
  // launch carries the cluster dimension (cuLaunchKernelEx's CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
  // the emulator's launch_body), and the grid is a multiple of it.
  int cluster_x = 1;
};

// The blocks along x of a launch of `metadata` on a device of `sms` SMs: grid_x itself, or
// min(sms, grid_x) for a persistent kernel, rounded down to a multiple of its cluster (grid_x
// is one).
inline unsigned persistent_grid(const LaunchMetadata& metadata, unsigned grid_x, unsigned sms) {
  const unsigned cluster = metadata.cluster_x > 1 ? static_cast<unsigned>(metadata.cluster_x) : 1u;
  const unsigned most = sms / cluster * cluster;
  return metadata.persistent && most < grid_x ? (most > 0 ? most : cluster) : grid_x;
}

// The sidecar's JSON text form and back.
nlohmann::json to_json(const LaunchMetadata& metadata);
LaunchMetadata launch_metadata_from_json(const nlohmann::json& json);

}  // namespace polyfuse
