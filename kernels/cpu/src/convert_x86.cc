// F16C and AVX2 widening for the packing routines (types.h: bulk conversions). Compiled
// with -mavx2 -mf16c on x86-64 only; empty elsewhere. The tails (n % 8) go through the
// scalar conversions, which give the same bits (NaNs quieted as vcvtph2ps does).
#include "convert_x86.h"

#include "polyfuse/cpu/types.h"

#if defined(__x86_64__) && defined(__F16C__) && defined(__AVX2__)
#include <immintrin.h>

namespace polyfuse::cpu::detail {

void f16_to_f32_f16c(const uint16_t* src, int64_t n, float* dst) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
  for (; i < n; ++i) dst[i] = f16_to_f32(src[i]);
}

void bf16_to_f32_avx2(const uint16_t* src, int64_t n, float* dst) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i wide = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    _mm256_storeu_ps(dst + i, _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16)));
  }
  for (; i < n; ++i) dst[i] = bf16_to_f32(src[i]);
}

}  // namespace polyfuse::cpu::detail
#endif
