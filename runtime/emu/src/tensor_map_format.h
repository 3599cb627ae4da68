// The emulator's layout of the 128 bytes of a tensor map (tensor_map.h), and its decoder.
#pragma once

#include <cstdint>
#include <optional>

#include "runtime/tma/tensor_map_rules.h"

namespace polyfuse::emu {

struct EmuTensorMap {
  std::uint32_t magic = 0;            // kTensorMapMagic
  std::uint8_t version = 0, rank = 0, element_bytes = 0, swizzle = 0;  // swizzle: tma::Swizzle
  std::uint8_t type = 0, l2_promotion = 0, padding[2] = {0, 0};
  std::uint64_t address = 0;
  std::uint64_t dim[5] = {};
  std::uint64_t stride[5] = {};       // bytes; stride[0] = the element size
  std::uint16_t box[5] = {};
  std::uint8_t element_stride[5] = {};
  std::uint8_t padding2 = 0;
  std::uint32_t check = 0;            // checksum of the bytes before it
};
static_assert(sizeof(EmuTensorMap) <= 128, "an emulator tensor map fits a CUtensorMap");

constexpr std::uint32_t kTensorMapMagic = 0x4d547066;  // "fpTM"

// The map in `bytes` (128 bytes), or nothing when they are not an intact emulator tensor map.
std::optional<EmuTensorMap> decode_tensor_map(const void* bytes);
// Elements of the box along dimension i (ceil(box / elementStride); dimension 0: box[0]).
unsigned box_elements(const EmuTensorMap& m, unsigned i);
// Bytes of the box in shared memory (= its transaction bytes).
std::uint64_t box_bytes(const EmuTensorMap& m);

}  // namespace polyfuse::emu
