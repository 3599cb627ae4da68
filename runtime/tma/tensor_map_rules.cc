#include "runtime/tma/tensor_map_rules.h"

namespace polyfuse::tma {
namespace {

bool is_packed(DataType t) {
  return t == DataType::u4x16_align8b || t == DataType::u4x16_align16b || t == DataType::u6x16_align16b;
}
bool is_packed_16b(DataType t) { return t == DataType::u4x16_align16b || t == DataType::u6x16_align16b; }
bool is_float(DataType t) {
  switch (t) {
    case DataType::float16: case DataType::float32: case DataType::float64: case DataType::bfloat16:
    case DataType::float32_ftz: case DataType::tfloat32: case DataType::tfloat32_ftz: return true;
    default: return false;
  }
}

RuleViolation violation(Rule rule, std::string what, const char* rule_text) {
  return RuleViolation{rule, what + " (cuTensorMapEncodeTiled: " + rule_text + ")"};
}

std::string index_text(const char* name, unsigned i) { return std::string(name) + "[" + std::to_string(i) + "]"; }

}  // namespace

unsigned element_bits(DataType type) {
  switch (type) {
    case DataType::uint8: return 8;
    case DataType::uint16: case DataType::float16: case DataType::bfloat16: return 16;
    case DataType::uint32: case DataType::int32: case DataType::float32: case DataType::float32_ftz:
    case DataType::tfloat32: case DataType::tfloat32_ftz: return 32;
    case DataType::uint64: case DataType::int64: case DataType::float64: return 64;
    case DataType::u4x16_align8b: return 4;
    case DataType::u4x16_align16b: case DataType::u6x16_align16b: return 8;
  }
  return 0;
}

const char* to_string(DataType type) {
  static const char* const names[] = {"UINT8", "UINT16", "UINT32", "INT32", "UINT64", "INT64", "FLOAT16", "FLOAT32",
                                      "FLOAT64", "BFLOAT16", "FLOAT32_FTZ", "TFLOAT32", "TFLOAT32_FTZ",
                                      "16U4_ALIGN8B", "16U4_ALIGN16B", "16U6_ALIGN16B"};
  const int i = static_cast<int>(type);
  return i >= 0 && i < 16 ? names[i] : "?";
}

const char* to_string(Swizzle swizzle) {
  static const char* const names[] = {"SWIZZLE_NONE", "SWIZZLE_32B", "SWIZZLE_64B", "SWIZZLE_128B",
                                      "SWIZZLE_128B_ATOM_32B", "SWIZZLE_128B_ATOM_32B_FLIP_8B",
                                      "SWIZZLE_128B_ATOM_64B"};
  const int i = static_cast<int>(swizzle);
  return i >= 0 && i < 7 ? names[i] : "?";
}

unsigned swizzle_span_bytes(Swizzle swizzle) {
  switch (swizzle) {
    case Swizzle::none: return 0;
    case Swizzle::b32: return 32;
    case Swizzle::b64: return 64;
    default: return 128;
  }
}

std::optional<RuleViolation> check_tiled_map(const TiledMapRequest& r) {
  const int type = static_cast<int>(r.type), interleave = static_cast<int>(r.interleave),
            swizzle = static_cast<int>(r.swizzle), l2 = static_cast<int>(r.l2_promotion),
            oob = static_cast<int>(r.oob_fill);
  if (type < 0 || type > 15 || interleave < 0 || interleave > 2 || swizzle < 0 || swizzle > 6 || l2 < 0 || l2 > 3 ||
      oob < 0 || oob > 1)
    return violation(Rule::enum_value, "an enum argument is outside its type",
                     "tensorDataType, interleave, swizzle, l2Promotion and oobFill take their enums' values");
  // tensorRank
  if (r.rank == 0 || r.rank > kMaxRank)
    return violation(Rule::rank, "tensorRank = " + std::to_string(r.rank),
                     "tensorRank must be non-zero and at most 5");
  if (r.interleave != Interleave::none && r.rank < 3)
    return violation(Rule::rank, "tensorRank = " + std::to_string(r.rank) + " with interleave",
                     "with an interleaved layout tensorRank must be at least 3");
  // globalAddress
  const bool needs32 = r.interleave == Interleave::b32 || is_packed_16b(r.type);
  if (r.global_address % 16 != 0)
    return violation(Rule::global_address, "globalAddress " + std::to_string(r.global_address % 16) +
                                               " bytes past a 16-byte boundary",
                     "globalAddress must be 16-byte aligned");
  if (needs32 && r.global_address % 32 != 0)
    return violation(Rule::global_address, "globalAddress not 32-byte aligned",
                     "with INTERLEAVE_32B or a 16-byte packed type globalAddress must be 32-byte aligned");
  // globalDim
  for (unsigned i = 0; i < r.rank; ++i)
    if (r.global_dim[i] == 0 || r.global_dim[i] > (std::uint64_t{1} << 32))
      return violation(Rule::global_dim, index_text("globalDim", i) + " = " + std::to_string(r.global_dim[i]),
                       "every globalDim must be non-zero and at most 2^32");
  if (is_packed_16b(r.type) && r.global_dim[0] % 128 != 0)
    return violation(Rule::global_dim, "globalDim[0] = " + std::to_string(r.global_dim[0]),
                     "with 16U6_ALIGN16B or 16U4_ALIGN16B globalDim[0] must be a multiple of 128");
  if (r.type == DataType::u4x16_align8b && r.global_dim[0] % 2 != 0)
    return violation(Rule::global_dim, "globalDim[0] = " + std::to_string(r.global_dim[0]),
                     "with 16U4_ALIGN8B globalDim[0] must be a multiple of 2");
  // globalStrides
  const unsigned stride_unit = needs32 ? 32 : 16;
  for (unsigned i = 0; i + 1 < r.rank; ++i) {
    if (r.global_strides[i] % 16 != 0)
      return violation(Rule::stride_multiple,
                       index_text("globalStrides", i) + " = " + std::to_string(r.global_strides[i]) +
                           " bytes is not a multiple of 16",
                       "each of the tensorRank - 1 globalStrides must be a multiple of 16 and less than 2^40");
    if (r.global_strides[i] % stride_unit != 0)
      return violation(Rule::stride_multiple,
                       index_text("globalStrides", i) + " = " + std::to_string(r.global_strides[i]) +
                           " bytes is not a multiple of 32",
                       "with INTERLEAVE_32B or a 16-byte packed type the strides must be multiples of 32");
    if (r.global_strides[i] >= (std::uint64_t{1} << 40))
      return violation(Rule::stride_range, index_text("globalStrides", i) + " = " + std::to_string(r.global_strides[i]),
                       "each globalStride must be less than 2^40");
  }
  // boxDim
  for (unsigned i = 0; i < r.rank; ++i)
    if (r.box_dim[i] == 0 || r.box_dim[i] > 256)
      return violation(Rule::box_dim, index_text("boxDim", i) + " = " + std::to_string(r.box_dim[i]),
                       "every boxDim must be non-zero and at most 256");
  const std::uint64_t inner_bits = std::uint64_t{r.box_dim[0]} * element_bits(r.type);
  if (r.interleave == Interleave::none && inner_bits % 128 != 0)
    return violation(Rule::box_inner_bytes,
                     "boxDim[0] = " + std::to_string(r.box_dim[0]) + " elements of " + to_string(r.type) + " = " +
                         std::to_string(inner_bits / 8) + (inner_bits % 8 ? ".5" : "") + " bytes",
                     "without interleave boxDim[0] * the element size must be a multiple of 16 bytes");
  if (is_packed_16b(r.type) && r.box_dim[0] != 128)
    return violation(Rule::packed_box, "boxDim[0] = " + std::to_string(r.box_dim[0]),
                     "with 16U6_ALIGN16B or 16U4_ALIGN16B boxDim[0] must be 128");
  // elementStrides
  for (unsigned i = 0; i < r.rank; ++i)
    if (r.element_strides[i] == 0 || r.element_strides[i] > 8)
      return violation(Rule::element_strides,
                       index_text("elementStrides", i) + " = " + std::to_string(r.element_strides[i]),
                       "every elementStride must be non-zero and at most 8");
  // swizzle
  if (r.interleave == Interleave::none && r.swizzle != Swizzle::none && inner_bits > 8u * swizzle_span_bytes(r.swizzle))
    return violation(Rule::swizzle_span,
                     "the box's inner dimension is " + std::to_string(inner_bits / 8) + " bytes with " +
                         to_string(r.swizzle),
                     "with a swizzle the bounding box inner dimension (boxDim[0] * element size) must be at most "
                     "the swizzle span: 32, 64 or 128 bytes");
  if (r.interleave == Interleave::b32 && r.swizzle != Swizzle::b32)
    return violation(Rule::interleave_swizzle, std::string("INTERLEAVE_32B with ") + to_string(r.swizzle),
                     "INTERLEAVE_32B requires SWIZZLE_32B");
  if (r.type == DataType::u6x16_align16b) {
    if (r.interleave != Interleave::none)
      return violation(Rule::packed_type_mode, "16U6_ALIGN16B with interleave",
                       "16U6_ALIGN16B requires INTERLEAVE_NONE");
    if (r.swizzle != Swizzle::none && r.swizzle != Swizzle::b128 && r.swizzle != Swizzle::b128_atom_32b &&
        r.swizzle != Swizzle::b128_atom_64b)
      return violation(Rule::packed_type_mode, std::string("16U6_ALIGN16B with ") + to_string(r.swizzle),
                       "16U6_ALIGN16B supports SWIZZLE_NONE, _128B, _128B_ATOM_32B and _128B_ATOM_64B only");
  }
  if (r.type == DataType::u4x16_align16b && r.swizzle != Swizzle::none && r.swizzle != Swizzle::b128 &&
      r.swizzle != Swizzle::b128_atom_32b)
    return violation(Rule::packed_type_mode, std::string("16U4_ALIGN16B with ") + to_string(r.swizzle),
                     "16U4_ALIGN16B supports SWIZZLE_NONE, _128B and _128B_ATOM_32B only");
  // oobFill
  if (r.oob_fill == OobFill::nan_request_zero_fma && (!is_float(r.type) || is_packed(r.type)))
    return violation(Rule::oob_fill, std::string("FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA with ") + to_string(r.type),
                     "the NaN fill needs a floating-point, non-packed tensorDataType");
  return std::nullopt;
}

}  // namespace polyfuse::tma
