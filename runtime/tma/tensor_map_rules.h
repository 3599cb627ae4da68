// The rules cuTensorMapEncodeTiled enforces on a tiled tensor map (CUDA driver API, "Tensor
// Map Object Management", cuda.h of CUDA 13), as a function that says which rule a request
// breaks. The code generator asks it whether TMA can load a problem's operands (and takes a
// fallback when not); the emulator's encoder and the GPU encoder (tensor_map.h) refuse a map
// that breaks one. A dependency-free leaf library (polyfuse_tma_rules): the code generator may
// link it without depending on the rest of runtime/.
//
// The parameters mirror cuTensorMapEncodeTiled's, with the enums in CUDA's order (the values
// are the driver's). Dimension 0 is the innermost (contiguous) one; strides are in bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace polyfuse::tma {

enum class DataType : int {  // CUtensorMapDataType
  uint8 = 0, uint16, uint32, int32, uint64, int64, float16, float32, float64, bfloat16,
  float32_ftz, tfloat32, tfloat32_ftz, u4x16_align8b, u4x16_align16b, u6x16_align16b
};
enum class Interleave : int { none = 0, b16, b32 };  // CUtensorMapInterleave
enum class Swizzle : int {                           // CUtensorMapSwizzle
  none = 0, b32, b64, b128, b128_atom_32b, b128_atom_32b_flip_8b, b128_atom_64b
};
enum class L2Promotion : int { none = 0, b64, b128, b256 };  // CUtensorMapL2promotion
enum class OobFill : int { none = 0, nan_request_zero_fma };  // CUtensorMapFloatOOBfill (none: zeros)

constexpr unsigned kMaxRank = 5;

struct TiledMapRequest {
  DataType type = DataType::float16;
  unsigned rank = 2;                        // tensorRank
  std::uintptr_t global_address = 0;        // globalAddress
  std::uint64_t global_dim[kMaxRank] = {};  // globalDim[rank]
  std::uint64_t global_strides[kMaxRank - 1] = {};  // globalStrides[rank - 1], bytes
  std::uint32_t box_dim[kMaxRank] = {};     // boxDim[rank]
  std::uint32_t element_strides[kMaxRank] = {1, 1, 1, 1, 1};  // elementStrides[rank]
  Interleave interleave = Interleave::none;
  Swizzle swizzle = Swizzle::none;
  L2Promotion l2_promotion = L2Promotion::none;
  OobFill oob_fill = OobFill::none;
};

// The rule a request breaks (one per "must" of the driver's documentation).
enum class Rule {
  rank,                  // tensorRank 1..5 (>= 3 with interleave)
  global_address,        // 16-byte aligned (32 with INTERLEAVE_32B or the 16-byte packed types)
  global_dim,            // 1..2^32 each; packed types: multiples of 128 / 2 along dimension 0
  stride_multiple,       // globalStrides multiples of 16 (32 with INTERLEAVE_32B / packed 16B types)
  stride_range,          // globalStrides < 2^40
  box_dim,               // boxDim 1..256 each
  box_inner_bytes,       // boxDim[0] * element size a multiple of 16 bytes (no interleave)
  packed_box,            // packed 16-byte types: boxDim[0] == 128
  element_strides,       // elementStrides 1..8 each
  swizzle_span,          // no interleave, swizzled: boxDim[0] * element size <= the swizzle span
  interleave_swizzle,    // INTERLEAVE_32B needs SWIZZLE_32B
  packed_type_mode,      // packed types: their interleave and swizzle restrictions
  oob_fill,              // NaN fill only for (non-packed) floating-point types
  enum_value             // an enum argument outside its type
};

// The 128 bytes of a CUtensorMap (cuda.h: 64-byte aligned), what a kernel takes as its
// `const __grid_constant__ pf::sm90::TensorMap` parameter: written by cuTensorMapEncodeTiled on
// a GPU, by polyfuse::emu::encode_tensor_map for the emulator (tensor_map.h chooses).
struct alignas(64) TensorMapBytes {
  unsigned char bytes[128] = {};
};

struct RuleViolation {
  Rule rule;
  std::string message;  // "globalStrides[0] = 258 bytes is not a multiple of 16 (...)"
};

// Size of one element in bits (4 for the packed 4-bit type, 8 for the 16-byte packed ones,
// whose 16 values occupy 16 bytes).
unsigned element_bits(DataType type);
// "FLOAT16", as CUDA spells the enum (without the prefix).
const char* to_string(DataType type);
const char* to_string(Swizzle swizzle);
// Bytes of a swizzle's span: 0 (none), 32, 64, 128.
unsigned swizzle_span_bytes(Swizzle swizzle);

// The first rule of cuTensorMapEncodeTiled that `request` breaks, or nothing when the driver
// accepts it (as far as its documentation says; the tensor map's own 64-byte alignment is the
// caller's storage, see tensor_map.h).
std::optional<RuleViolation> check_tiled_map(const TiledMapRequest& request);

}  // namespace polyfuse::tma
