// F16C and AVX2 widening for the packing routines and narrowing for elementwise.h's stores
// (types.h: bulk conversions). Compiled with -mavx2 -mf16c on x86-64 only; empty elsewhere. The
// tails (n % 8) go through the scalar conversions, which give the same bits (NaNs quieted as
// vcvtph2ps does when widening; made the sign and 0x7e00 when narrowing).
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

void f32_to_f16_f16c(const float* src, int64_t n, uint16_t* dst) {
  int64_t i = 0;
  const __m128i quiet = _mm_set1_epi16(0x7e00), sign = _mm_set1_epi16(static_cast<short>(0x8000));
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(src + i);
    const __m128i half = _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    // NaN lanes: 0xffff from the 32-bit compare mask packed (signed saturation keeps -1)
    const __m256i nan32 = _mm256_castps_si256(_mm256_cmp_ps(x, x, _CMP_UNORD_Q));
    const __m128i nan16 = _mm_packs_epi32(_mm256_castsi256_si128(nan32), _mm256_extracti128_si256(nan32, 1));
    const __m128i canonical = _mm_or_si128(_mm_and_si128(half, sign), quiet);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm_blendv_epi8(half, canonical, nan16));
  }
  for (; i < n; ++i) dst[i] = f32_to_f16(src[i]);
}

void f32_to_bf16_avx2(const float* src, int64_t n, uint16_t* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = f32_to_bf16(src[i]);  // vectorised by the compiler (AVX2)
}

}  // namespace polyfuse::cpu::detail
#endif
