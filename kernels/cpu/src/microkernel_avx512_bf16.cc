// AVX-512-BF16 microkernel: 32 x 12 block of f32 accumulators updated by vdpbf16ps from
// packed bf16 pairs. A panels hold, per step, 32 rows x 2 k (each 32-bit lane one
// (k, k+1) pair of a row); B panels hold per step and column one (k, k+1) pair, which
// is broadcast as a 32-bit value. Odd K is padded with a zero k by the packing.
// Compiled with -mavx512f -mavx512bf16 (CMake, this file only).
#define POLYFUSE_UKERNEL_NS avx512_bf16_ns
#include "microkernel_template.h"

#if defined(__x86_64__) && defined(__AVX512F__) && defined(__AVX512BF16__)
#include <immintrin.h>

namespace polyfuse::cpu::detail {
namespace avx512_bf16_ns {
namespace {

struct Avx512Bf16 {
  using acc = __m512;
  using avec = __m512bh;
  using bvec = __m512bh;
  using elem = uint16_t;
  using tail_t = __mmask16;
  static constexpr int lanes = 16, vectors = 2, columns = 12, k_pack = 2;
  static __mmask16 make_tail(int n) { return static_cast<__mmask16>((1u << n) - 1u); }
  static __m512 zero() { return _mm512_setzero_ps(); }
  static __m512 load_c(const float* p) { return _mm512_loadu_ps(p); }
  static __m512 load_c_n(const float* p, __mmask16 t) { return _mm512_maskz_loadu_ps(t, p); }
  static void store_c(float* p, __m512 x) { _mm512_storeu_ps(p, x); }
  static void store_c_n(float* p, __m512 x, __mmask16 t) { _mm512_mask_storeu_ps(p, t, x); }
  static __m512bh load_a(const uint16_t* p) {
    return reinterpret_cast<__m512bh>(_mm512_loadu_si512(p));
  }
  static __m512bh load_a_n(const uint16_t* p, __mmask16 t) {
    return reinterpret_cast<__m512bh>(_mm512_maskz_loadu_epi32(t, p));
  }
  static __m512bh broadcast_b(const uint16_t* p) {
    int32_t pair;
    __builtin_memcpy(&pair, p, sizeof pair);
    return reinterpret_cast<__m512bh>(_mm512_set1_epi32(pair));
  }
  static __m512 fma(__m512 c, __m512bh a, __m512bh b) { return _mm512_dpbf16_ps(c, a, b); }
  static __m512 splat(float x) { return _mm512_set1_ps(x); }
  static __m512 add(__m512 x, __m512 y) { return _mm512_add_ps(x, y); }
  // NaN, -0 -> +0; the maskz form: GCC 12 warns on _mm512_max_ps's undefined pass-through
  static __m512 relu(__m512 x) { return _mm512_maskz_max_ps(__mmask16(0xffff), x, _mm512_setzero_ps()); }
};

}  // namespace
}  // namespace avx512_bf16_ns

const KernelFamily& avx512_bf16_family() {
  static const KernelFamily family = avx512_bf16_ns::make_family<avx512_bf16_ns::Avx512Bf16>();
  return family;
}

}  // namespace polyfuse::cpu::detail

#else
namespace polyfuse::cpu::detail {
const KernelFamily& avx512_bf16_family() {
  static const KernelFamily none;
  return none;
}
}  // namespace polyfuse::cpu::detail
#endif
