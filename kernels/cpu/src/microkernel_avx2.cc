// AVX2 + FMA microkernel: 16 x 6 f32 block (12 ymm accumulators, 2 for A, 1 for the
// broadcast of B: 15 of 16 registers). Compiled with -mavx2 -mfma (CMake, this file only).
#define POLYFUSE_UKERNEL_NS avx2_ns
#include "microkernel_template.h"

#if defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

namespace polyfuse::cpu::detail {
namespace avx2_ns {
namespace {

struct Avx2 {
  using acc = __m256;
  using avec = __m256;
  using bvec = __m256;
  using elem = float;
  using tail_t = __m256i;
  static constexpr int lanes = 8, vectors = 2, columns = 6, k_pack = 1;
  static __m256i make_tail(int n) {
    alignas(32) static const int32_t table[16] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                                   0,  0,  0,  0,  0,  0,  0,  0};
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(table + 8 - n));
  }
  static __m256 zero() { return _mm256_setzero_ps(); }
  static __m256 load_c(const float* p) { return _mm256_loadu_ps(p); }
  static __m256 load_c_n(const float* p, __m256i t) { return _mm256_maskload_ps(p, t); }
  static void store_c(float* p, __m256 x) { _mm256_storeu_ps(p, x); }
  static void store_c_n(float* p, __m256 x, __m256i t) { _mm256_maskstore_ps(p, t, x); }
  static __m256 load_a(const float* p) { return _mm256_loadu_ps(p); }
  static __m256 load_a_n(const float* p, __m256i t) { return _mm256_maskload_ps(p, t); }
  static __m256 broadcast_b(const float* p) { return _mm256_broadcast_ss(p); }
  static __m256 fma(__m256 c, __m256 a, __m256 b) { return _mm256_fmadd_ps(a, b, c); }
  static __m256 splat(float x) { return _mm256_set1_ps(x); }
  static __m256 add(__m256 x, __m256 y) { return _mm256_add_ps(x, y); }
  static __m256 relu(__m256 x) { return _mm256_max_ps(x, _mm256_setzero_ps()); }  // NaN, -0 -> +0
};

}  // namespace
}  // namespace avx2_ns

const KernelFamily& avx2_f32_family() {
  static const KernelFamily family = avx2_ns::make_family<avx2_ns::Avx2>();
  return family;
}

}  // namespace polyfuse::cpu::detail

#else
namespace polyfuse::cpu::detail {
const KernelFamily& avx2_f32_family() {
  static const KernelFamily none;
  return none;
}
}  // namespace polyfuse::cpu::detail
#endif
