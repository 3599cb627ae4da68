// Internal: the x86 vector paths of the bulk f16/bf16 -> f32 conversions (types.h), in a
// file of their own compiled with -mavx2 -mf16c; called only where the CPU has both.
#pragma once

#include <cstdint>

namespace polyfuse::cpu::detail {

// `n` contiguous f16 values widened with F16C (vcvtph2ps, 8 per instruction).
void f16_to_f32_f16c(const uint16_t* src, int64_t n, float* dst);

// `n` contiguous bf16 values widened with AVX2 (zero-extend to 32 bits, shift left 16).
void bf16_to_f32_avx2(const uint16_t* src, int64_t n, float* dst);

}  // namespace polyfuse::cpu::detail
