// The emulator's tensor-map encoder and decoder (tensor_map.h, tensor_map_format.h).
#include "polyfuse_emu/tensor_map.h"

#include <cstddef>
#include <cstring>

#include "polyfuse_emu/emulator.h"
#include "tensor_map_format.h"

namespace polyfuse::emu {
namespace {

std::uint32_t checksum(const EmuTensorMap& m) {
  const auto* p = reinterpret_cast<const unsigned char*>(&m);
  std::uint32_t h = 2166136261u;  // FNV-1a over everything before `check`
  for (std::size_t i = 0; i < offsetof(EmuTensorMap, check); ++i) h = (h ^ p[i]) * 16777619u;
  return h;
}

[[noreturn]] void not_modelled(const std::string& what) {
  throw EmulationError("polyfuse emu: tensor map not modelled by the emulator: " + what);
}

}  // namespace

tma::TensorMapBytes encode_tensor_map(const tma::TiledMapRequest& r) {
  if (const auto broken = tma::check_tiled_map(r))
    throw EmulationError("polyfuse emu: tensor map refused, as cuTensorMapEncodeTiled refuses it: " + broken->message);
  if (r.interleave != tma::Interleave::none) not_modelled("interleaved layouts (CU_TENSOR_MAP_INTERLEAVE_16B/32B)");
  if (static_cast<int>(r.swizzle) > static_cast<int>(tma::Swizzle::b128))
    not_modelled(std::string(tma::to_string(r.swizzle)) + " (a Blackwell swizzle)");
  if (tma::element_bits(r.type) % 8 != 0 || r.type == tma::DataType::u4x16_align16b ||
      r.type == tma::DataType::u6x16_align16b)
    not_modelled(std::string("the packed data type ") + tma::to_string(r.type));
  if (r.oob_fill != tma::OobFill::none) not_modelled("the NaN fill of out-of-bound elements");
  const unsigned element_bytes = tma::element_bits(r.type) / 8;
  const unsigned span = tma::swizzle_span_bytes(r.swizzle);
  if (span && r.box_dim[0] * element_bytes != span)
    not_modelled("a " + std::to_string(r.box_dim[0] * element_bytes) + "-byte box row with " +
                 tma::to_string(r.swizzle) + " (the emulator models swizzled boxes whose inner dimension is the "
                 "whole " + std::to_string(span) + "-byte span)");
  EmuTensorMap m;
  m.magic = kTensorMapMagic;
  m.version = 1;
  m.rank = static_cast<std::uint8_t>(r.rank);
  m.element_bytes = static_cast<std::uint8_t>(element_bytes);
  m.swizzle = static_cast<std::uint8_t>(r.swizzle);
  m.type = static_cast<std::uint8_t>(r.type);
  m.l2_promotion = static_cast<std::uint8_t>(r.l2_promotion);
  m.address = r.global_address;
  for (unsigned i = 0; i < r.rank; ++i) {
    m.dim[i] = r.global_dim[i];
    m.stride[i] = i == 0 ? element_bytes : r.global_strides[i - 1];
    m.box[i] = static_cast<std::uint16_t>(r.box_dim[i]);
    m.element_stride[i] = static_cast<std::uint8_t>(i == 0 ? 1 : r.element_strides[i]);  // [0] is ignored
  }
  m.check = checksum(m);
  tma::TensorMapBytes out;
  std::memcpy(out.bytes, &m, sizeof m);
  return out;
}

std::optional<EmuTensorMap> decode_tensor_map(const void* bytes) {
  EmuTensorMap m;
  std::memcpy(&m, bytes, sizeof m);
  if (m.magic != kTensorMapMagic || m.version != 1 || m.check != checksum(m) || m.rank == 0 || m.rank > 5)
    return std::nullopt;
  return m;
}

unsigned box_elements(const EmuTensorMap& m, unsigned i) {
  return (m.box[i] + m.element_stride[i] - 1u) / m.element_stride[i];
}

std::uint64_t box_bytes(const EmuTensorMap& m) {
  std::uint64_t n = m.element_bytes;
  for (unsigned i = 0; i < m.rank; ++i) n *= box_elements(m, i);
  return n;
}

}  // namespace polyfuse::emu
