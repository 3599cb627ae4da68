// Internal: the x86 vector paths of the bulk f16/bf16 <-> f32 conversions (types.h), in a
// file of their own compiled with -mavx2 -mf16c; called only where the CPU has both.
#pragma once

#include <cstdint>

namespace polyfuse::cpu::detail {

// `n` contiguous f16 values widened with F16C (vcvtph2ps, 8 per instruction).
void f16_to_f32_f16c(const uint16_t* src, int64_t n, float* dst);

// `n` contiguous bf16 values widened with AVX2 (zero-extend to 32 bits, shift left 16).
void bf16_to_f32_avx2(const uint16_t* src, int64_t n, float* dst);

// `n` f32 values narrowed to f16 with F16C (vcvtps2ph, nearest even), NaNs as the scalar
// conversion makes them (the sign and 0x7e00: vcvtps2ph would keep their payload).
void f32_to_f16_f16c(const float* src, int64_t n, uint16_t* dst);

// `n` f32 values narrowed to bf16 (nearest even, NaNs quiet) on AVX2's integer lanes.
void f32_to_bf16_avx2(const float* src, int64_t n, uint16_t* dst);

}  // namespace polyfuse::cpu::detail
