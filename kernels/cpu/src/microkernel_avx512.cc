// AVX-512F microkernel: 32 x 12 f32 block (24 zmm accumulators, 2 for A, 1 for the
// broadcast of B, of 32 registers); tails use mask registers.
// Compiled with -mavx512f (CMake, this file only).
#define POLYFUSE_UKERNEL_NS avx512_ns
#include "microkernel_template.h"

#if defined(__x86_64__) && defined(__AVX512F__)
#include <immintrin.h>

namespace polyfuse::cpu::detail {
namespace avx512_ns {
namespace {

struct Avx512 {
  using acc = __m512;
  using avec = __m512;
  using bvec = __m512;
  using elem = float;
  using tail_t = __mmask16;
  static constexpr int lanes = 16, vectors = 2, columns = 12, k_pack = 1;
  static __mmask16 make_tail(int n) { return static_cast<__mmask16>((1u << n) - 1u); }
  static __m512 zero() { return _mm512_setzero_ps(); }
  static __m512 load_c(const float* p) { return _mm512_loadu_ps(p); }
  static __m512 load_c_n(const float* p, __mmask16 t) { return _mm512_maskz_loadu_ps(t, p); }
  static void store_c(float* p, __m512 x) { _mm512_storeu_ps(p, x); }
  static void store_c_n(float* p, __m512 x, __mmask16 t) { _mm512_mask_storeu_ps(p, t, x); }
  static __m512 load_a(const float* p) { return _mm512_loadu_ps(p); }
  static __m512 load_a_n(const float* p, __mmask16 t) { return _mm512_maskz_loadu_ps(t, p); }
  static __m512 broadcast_b(const float* p) { return _mm512_set1_ps(*p); }
  static __m512 fma(__m512 c, __m512 a, __m512 b) { return _mm512_fmadd_ps(a, b, c); }
  static __m512 splat(float x) { return _mm512_set1_ps(x); }
  static __m512 add(__m512 x, __m512 y) { return _mm512_add_ps(x, y); }
  // NaN, -0 -> +0; the maskz form: GCC 12 warns on _mm512_max_ps's undefined pass-through
  static __m512 relu(__m512 x) { return _mm512_maskz_max_ps(__mmask16(0xffff), x, _mm512_setzero_ps()); }
};

}  // namespace
}  // namespace avx512_ns

const KernelFamily& avx512_f32_family() {
  static const KernelFamily family = avx512_ns::make_family<avx512_ns::Avx512>();
  return family;
}

}  // namespace polyfuse::cpu::detail

#else
namespace polyfuse::cpu::detail {
const KernelFamily& avx512_f32_family() {
  static const KernelFamily none;
  return none;
}
}  // namespace polyfuse::cpu::detail
#endif
