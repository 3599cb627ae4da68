// f32 transposition (transpose.h). The vector paths are functions compiled for their ISA by
// target attributes; they use intrinsics only (no inline library code the linker could share
// with baseline code), and run only where isa_supported says the CPU has the ISA.
#include "transpose.h"

#include <algorithm>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// GCC 12 reports the AVX-512 shuffles' internal _mm512_undefined_ps() operand as "(may be) used
// uninitialized" once inlined into a target-attribute function: a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace polyfuse::cpu::detail {
namespace {

// The element-by-element path on the block [i0, i1) x [j0, j1), in 16 x 16 tiles so that the
// 16 destination rows being written stay in L1 (no vector ISA).
void transpose_scalar(const float* src, int64_t src_ld, float* dst, int64_t dst_ld, int64_t i0, int64_t i1,
                      int64_t j0, int64_t j1) {
  constexpr int64_t tile = 16;
  for (int64_t ib = i0; ib < i1; ib += tile)
    for (int64_t jb = j0; jb < j1; jb += tile) {
      const int64_t ie = ib + tile < i1 ? ib + tile : i1, je = jb + tile < j1 ? jb + tile : j1;
      for (int64_t i = ib; i < ie; ++i)
        for (int64_t j = jb; j < je; ++j) dst[j * dst_ld + i] = src[i * src_ld + j];
    }
}

// `size` x `size` tiles through `tile` (a register transposition of the rows x cols at the
// tile's origin, rows and cols <= size: the edges of the matrix are partial tiles, loaded and
// stored under masks). (`tile` is a call: its ISA's code is not inlined into this baseline
// function.)
template <int size>
void transpose_tiles(void (*tile)(const float*, int64_t, float*, int64_t, int, int), const float* src,
                     int64_t src_ld, float* dst, int64_t dst_ld, int64_t rows, int64_t cols) {
  for (int64_t i0 = 0; i0 < rows; i0 += size)
    for (int64_t j0 = 0; j0 < cols; j0 += size)
      tile(src + i0 * src_ld + j0, src_ld, dst + j0 * dst_ld + i0, dst_ld, static_cast<int>(std::min<int64_t>(size, rows - i0)),
           static_cast<int>(std::min<int64_t>(size, cols - j0)));
}

#if defined(__x86_64__)

// Transposes 16 rows of 16 in registers: r[i] holds row i, afterwards column i.
__attribute__((target("avx512f"))) inline void transpose_16x16(__m512* r) {
  __m512 t[16];
  for (int i = 0; i < 16; i += 2) {  // pairs of rows interleaved: t[i] = (r_i, r_i+1) elements 0,1 | 4,5 ...
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {  // quads of rows: 4 x 4 blocks inside each 128-bit lane
    r[i] = _mm512_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int i = 0; i < 16; i += 8)  // the lanes of two quads
    for (int j = 0; j < 4; ++j) {
      t[i + j] = _mm512_shuffle_f32x4(r[i + j], r[i + 4 + j], _MM_SHUFFLE(2, 0, 2, 0));
      t[i + 4 + j] = _mm512_shuffle_f32x4(r[i + j], r[i + 4 + j], _MM_SHUFFLE(3, 1, 3, 1));
    }
  for (int j = 0; j < 4; ++j) {  // the lanes of the two halves
    r[j] = _mm512_shuffle_f32x4(t[j], t[8 + j], _MM_SHUFFLE(2, 0, 2, 0));
    r[8 + j] = _mm512_shuffle_f32x4(t[j], t[8 + j], _MM_SHUFFLE(3, 1, 3, 1));
    r[4 + j] = _mm512_shuffle_f32x4(t[4 + j], t[12 + j], _MM_SHUFFLE(2, 0, 2, 0));
    r[12 + j] = _mm512_shuffle_f32x4(t[4 + j], t[12 + j], _MM_SHUFFLE(3, 1, 3, 1));
  }
}

// One tile of rows x cols <= 16 x 16: dst[j * dst_ld + i] = src[i * src_ld + j] for i < rows,
// j < cols. A partial tile's loads and stores are masked (masked-off elements are neither
// read nor written, so nothing outside the matrix is touched); missing rows are zeros.
__attribute__((target("avx512f"))) void tile_avx512(const float* src, int64_t src_ld, float* dst, int64_t dst_ld,
                                                   int rows, int cols) {
  __m512 r[16];
  if (rows == 16 && cols == 16) {
    for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(src + i * src_ld);
    transpose_16x16(r);
    for (int j = 0; j < 16; ++j) _mm512_storeu_ps(dst + j * dst_ld, r[j]);
    return;
  }
  const __mmask16 load = static_cast<__mmask16>((1u << cols) - 1), store = static_cast<__mmask16>((1u << rows) - 1);
  for (int i = 0; i < 16; ++i) r[i] = i < rows ? _mm512_maskz_loadu_ps(load, src + i * src_ld) : _mm512_setzero_ps();
  transpose_16x16(r);
  for (int j = 0; j < cols; ++j) _mm512_mask_storeu_ps(dst + j * dst_ld, store, r[j]);
}

// Transposes 8 rows of 8 in registers: r[i] holds row i, afterwards column i.
__attribute__((target("avx2"))) inline void transpose_8x8(__m256* r) {
  __m256 t[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int j = 0; j < 4; ++j) {  // 128-bit halves of row quads 0-3 and 4-7
    t[j] = _mm256_permute2f128_ps(r[j], r[4 + j], 0x20);
    t[4 + j] = _mm256_permute2f128_ps(r[j], r[4 + j], 0x31);
  }
  for (int j = 0; j < 8; ++j) r[j] = t[j];
}

// The lanes below `count` of an 8-lane mask for _mm256_maskload_ps / _mm256_maskstore_ps.
__attribute__((target("avx2"))) inline __m256i first_lanes(int count) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// One tile of rows x cols <= 8 x 8, partial ones under masks (as tile_avx512).
__attribute__((target("avx2"))) void tile_avx2(const float* src, int64_t src_ld, float* dst, int64_t dst_ld, int rows,
                                              int cols) {
  __m256 r[8];
  if (rows == 8 && cols == 8) {
    for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * src_ld);
    transpose_8x8(r);
    for (int j = 0; j < 8; ++j) _mm256_storeu_ps(dst + j * dst_ld, r[j]);
    return;
  }
  const __m256i load = first_lanes(cols), store = first_lanes(rows);
  for (int i = 0; i < 8; ++i) r[i] = i < rows ? _mm256_maskload_ps(src + i * src_ld, load) : _mm256_setzero_ps();
  transpose_8x8(r);
  for (int j = 0; j < cols; ++j) _mm256_maskstore_ps(dst + j * dst_ld, store, r[j]);
}

#endif

}  // namespace

void transpose_f32(Isa isa, const float* src, int64_t src_ld, float* dst, int64_t dst_ld, int64_t rows,
                   int64_t cols) {
#if defined(__x86_64__)
  if (isa == Isa::avx512) return transpose_tiles<16>(tile_avx512, src, src_ld, dst, dst_ld, rows, cols);
  if (isa == Isa::avx2) return transpose_tiles<8>(tile_avx2, src, src_ld, dst, dst_ld, rows, cols);
#endif
  transpose_scalar(src, src_ld, dst, dst_ld, 0, rows, 0, cols);
}

}  // namespace polyfuse::cpu::detail
