// Internal: f32 matrix transposition, the copy behind an identity Unary whose input and output
// layouts differ (a convolution's filter reordered into BRGEMM panels, once per call).
// AVX-512: 16 x 16 tiles through registers (unpack, shuffle, 128-bit lane shuffles); AVX2:
// 8 x 8 tiles, the edges of a matrix as partial tiles under masks; elsewhere 16 x 16 tiles
// element by element.
// The same values whatever the ISA: a copy.
#pragma once

#include <cstdint>

#include "polyfuse/cpu/types.h"

namespace polyfuse::cpu::detail {

// dst[j * dst_ld + i] = src[i * src_ld + j] for i < rows, j < cols, on `isa`'s path (one the
// CPU runs: best_isa() or below). Nothing else of dst is written.
void transpose_f32(Isa isa, const float* src, int64_t src_ld, float* dst, int64_t dst_ld, int64_t rows, int64_t cols);

}  // namespace polyfuse::cpu::detail
