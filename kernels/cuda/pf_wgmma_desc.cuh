// polyfuse device helpers, Hopper: wgmma matrix descriptors (PTX ISA 9.7.15.5.1.2.2 "Matrix
// Descriptor Format") and the descriptors of the canonical tiles of pf_swizzle_sm90.cuh.
//
// A descriptor is 64 bits:
//   bits  0..13  encode(matrix start address)          encode(x) = (x & 0x3FFFF) >> 4
//   bits 16..29  encode(leading dimension byte offset)
//   bits 32..45  encode(stride dimension byte offset)
//   bits 49..51  matrix base offset (swizzled modes; 0 when the pattern starts at its boundary)
//   bits 62..63  swizzle: 0 none, 1 128-byte, 2 64-byte, 3 32-byte
//
// What the two offsets mean (PTX ISA 9.7.15.5.1.2 and its stride tables; CuTe's
// make_gmma_desc states the same canonical layouts). Units of 16 bytes ("128-bit elements"),
// W the row bytes of the swizzle (16 for none), core matrix = 8 rows of 16 bytes:
//   K-major,  none:     LBO = from the first to the second core matrix along K (8 k apart);
//                       SBO = from one group of 8 rows (m/n) to the next.
//   K-major,  swizzled: LBO unused ("assumed 1"); rows are W bytes apart; SBO = from one
//                       8-row atom to the next along m/n.
//   MN-major, none:     LBO = from one group of 8 k to the next; SBO = from one group of 8
//                       m/n (16 bytes) to the next.
//   MN-major, swizzled: LBO = from one atom of W/2 m/n elements to the next; k rows are W
//                       bytes apart; SBO = from one group of 8 k rows to the next.
// The start address, LBO and SBO must be multiples of 16 bytes.
#pragma once

#include "pf_base.cuh"
#include "pf_swizzle_sm90.cuh"

namespace pf {
namespace sm90 {

// The descriptor's 2-bit swizzle code of a CUtensorMapSwizzle-ordered mode.
PF_DEVICE constexpr unsigned descriptor_swizzle_code(Swizzle s) {
  return s == Swizzle::none ? 0u : s == Swizzle::b128 ? 1u : s == Swizzle::b64 ? 2u : 3u;
}

PF_DEVICE constexpr unsigned long long descriptor_encode(unsigned bytes) { return (bytes & 0x3FFFFu) >> 4; }

// The descriptor of a matrix at shared-window address `start` (bytes; 16-byte aligned).
PF_DEVICE constexpr unsigned long long make_descriptor(unsigned start, unsigned leading_bytes, unsigned stride_bytes,
                                                       Swizzle s, unsigned base_offset = 0) {
  return descriptor_encode(start) | (descriptor_encode(leading_bytes) << 16) | (descriptor_encode(stride_bytes) << 32) |
         (static_cast<unsigned long long>(base_offset & 7u) << 49) |
         (static_cast<unsigned long long>(descriptor_swizzle_code(s)) << 62);
}

// The descriptor of the 64- or N-row operand that starts at row `mn0` (a multiple of 8; of
// W/2 for an M/N-major swizzled tile) for k-step `kk` (k = 16 kk .. 16 kk + 15) of a canonical
// tile at window address `tile` (pf_swizzle_sm90.cuh) of mn_extent x k_extent 16-bit elements.
PF_DEVICE constexpr unsigned long long tile_descriptor(Major major, Swizzle s, unsigned tile, int mn_extent, int k_extent,
                                                       int mn0, int kk) {
  const unsigned w = static_cast<unsigned>(row_bytes(s));
  if (major == Major::k) {
    const unsigned start = tile + kmajor_logical(s, mn_extent, mn0, 16 * kk);
    const unsigned leading = s == Swizzle::none ? static_cast<unsigned>(mn_extent) * 16u : 16u;
    return make_descriptor(start, leading, 8u * w, s);
  }
  const unsigned start = tile + mnmajor_logical(s, k_extent, mn0, 16 * kk);
  if (s == Swizzle::none) return make_descriptor(start, 128u, static_cast<unsigned>(k_extent) * 16u, s);
  return make_descriptor(start, static_cast<unsigned>(k_extent) * w, 8u * w, s);
}

}  // namespace sm90
}  // namespace pf
