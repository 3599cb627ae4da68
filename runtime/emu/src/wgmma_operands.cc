#include "wgmma_operands.h"

#include <cstdio>

namespace polyfuse::emu {

MatrixDescriptor decode_descriptor(std::uint64_t bits) {
  MatrixDescriptor d;
  d.start = static_cast<std::uint32_t>(bits & 0x3FFFu) << 4;
  d.leading = static_cast<std::uint32_t>((bits >> 16) & 0x3FFFu) << 4;
  d.stride = static_cast<std::uint32_t>((bits >> 32) & 0x3FFFu) << 4;
  d.base_offset = static_cast<unsigned>((bits >> 49) & 7u);
  d.swizzle_code = static_cast<unsigned>((bits >> 62) & 3u);
  return d;
}

std::string describe(const MatrixDescriptor& d) {
  static const char* const swizzles[] = {"no swizzle", "128-byte swizzle", "64-byte swizzle", "32-byte swizzle"};
  char text[160];
  std::snprintf(text, sizeof text, "start %u, LBO %u, SBO %u, base offset %u, %s", d.start, d.leading, d.stride,
                d.base_offset, swizzles[d.swizzle_code]);
  return text;
}

std::uint64_t operand_element_offset(const MatrixDescriptor& d, bool mn_major, unsigned mn, unsigned k,
                                     unsigned element_bytes) {
  const std::uint64_t w = d.row_bytes();
  const bool swizzled = d.swizzle_code != 0;
  std::uint64_t a = d.start;
  if (!mn_major) {  // k's byte within the row: 16-byte chunks along k
    const std::uint64_t kb = std::uint64_t{k} * element_bytes;
    a += (mn / 8) * std::uint64_t{d.stride} + kb % 16;
    a += swizzled ? (mn % 8) * w + (kb / 16) * 16 : (mn % 8) * 16 + (kb / 16) * std::uint64_t{d.leading};
  } else if (swizzled) {
    const std::uint64_t per_row = w / 2;
    a += (mn / per_row) * std::uint64_t{d.leading} + (mn % per_row) * 2 + (k / 8) * std::uint64_t{d.stride} + (k % 8) * w;
  } else {
    a += (mn / 8) * std::uint64_t{d.stride} + (mn % 8) * 2 + (k / 8) * std::uint64_t{d.leading} + (k % 8) * 16;
  }
  const std::uint64_t mask = w / 16 - 1;  // 0, 1, 3, 7
  return a ^ (((a >> 7) & mask) << 4);
}

}  // namespace polyfuse::emu
