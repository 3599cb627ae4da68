// Where a wgmma.mma_async finds its shared-memory operands: the emulator's model of the
// matrix descriptor (PTX ISA 9.7.15.5.1.2.2 "Matrix Descriptor Format") and of the canonical
// layouts it describes (9.7.15.5.1.2 "Shared Memory Matrix Layout": swizzle atoms of Table 38,
// with the leading/stride byte offsets of the stride tables), independent of the device
// helpers' descriptor builder (kernels/cuda/pf_wgmma_desc.cuh), which tests compare with it.
//
// For element (mn, k) of a 16-bit operand (mn = m of A or n of B, k = 0..15), W the row bytes
// of the swizzle (16 none, 32, 64, 128), 8-row core matrices:
//   K-major  none:     start + (mn / 8) SBO + (mn % 8) 16 + (k / 8) LBO + (k % 8) 2
//   K-major  swizzled: start + (mn / 8) SBO + (mn % 8) W  + (k / 8) 16  + (k % 8) 2
//   MN-major none:     start + (mn / 8) SBO + (mn % 8) 2  + (k / 8) LBO + (k % 8) 16
//   MN-major swizzled: start + (mn / (W/2)) LBO + (mn % (W/2)) 2 + (k / 8) SBO + (k % 8) W
// then the swizzle: address XOR (((address >> 7) & (W/16 - 1)) << 4), on the shared-window
// address (the emulator's offsets from a 1024-byte aligned dynamic shared memory). A non-zero
// matrix base offset (a pattern that does not start at its 256/512/1024-byte boundary) is not
// modelled: the emulator refuses it.
#pragma once

#include <cstdint>
#include <string>

namespace polyfuse::emu {

struct MatrixDescriptor {
  std::uint32_t start = 0;     // bytes
  std::uint32_t leading = 0;   // leading dimension byte offset
  std::uint32_t stride = 0;    // stride dimension byte offset
  unsigned base_offset = 0;    // bits 49..51
  unsigned swizzle_code = 0;   // bits 62..63: 0 none, 1 128B, 2 64B, 3 32B
  unsigned row_bytes() const { return swizzle_code == 0 ? 16u : swizzle_code == 1 ? 128u : swizzle_code == 2 ? 64u : 32u; }
};

MatrixDescriptor decode_descriptor(std::uint64_t bits);
// "start 0x400, LBO 16, SBO 1024, 128-byte swizzle".
std::string describe(const MatrixDescriptor& d);
// Shared offset of the first byte of element (mn, k) of the operand: 16-bit elements, or
// `element_bytes` 1 (FP8, K-major only: (k % 8) 2 and k / 8 above become k % 16 and k / 16).
std::uint64_t operand_element_offset(const MatrixDescriptor& d, bool mn_major, unsigned mn, unsigned k,
                                     unsigned element_bytes = 2);

}  // namespace polyfuse::emu
