// The 16-lane bodies of vector_math.h on AVX-512 machines: compiled with -mavx512f -mfma on x86-64
// only (CMake); glibc's libmvec AVX-512 variants ('e': 16 floats in a zmm register) of expf and
// tanhf, composed as vector_math_x86.cc composes the 8-lane ones. Only the ops whose 16-lane
// functions hold the same bounds (tests/kernels_cpu/vector_math_test.cc): exp, sigmoid, silu,
// tanh, and the exact sqrt, rsqrt, abs; erf (gelu) stays 8 lanes wide (libmvec's 16-lane erff
// errs by 4 u, past the model's bound).
#include "vector_math.h"

#include <algorithm>

#if defined(__x86_64__) && defined(__AVX512F__) && defined(__FMA__)
#include <immintrin.h>

extern "C" {
__m512 _ZGVeN16v_expf(__m512);
__m512 _ZGVeN16v_tanhf(__m512);
}

namespace polyfuse::cpu::detail {
namespace {

__m512 splat(float value) { return _mm512_set1_ps(value); }

// The scalar definitions of elementwise.cc (apply), operation by operation.
template <UnaryOp op>
__m512 eval(__m512 x) {
  const __m512 one = splat(1.f);
  if constexpr (op == UnaryOp::exp) return _ZGVeN16v_expf(x);
  if constexpr (op == UnaryOp::tanh) return _ZGVeN16v_tanhf(x);
  if constexpr (op == UnaryOp::sigmoid)  // 1 / (1 + exp(-x))
    return _mm512_div_ps(one, _mm512_add_ps(one, _ZGVeN16v_expf(_mm512_sub_ps(splat(0.f), x))));
  if constexpr (op == UnaryOp::silu)  // x / (1 + exp(-x))
    return _mm512_div_ps(x, _mm512_add_ps(one, _ZGVeN16v_expf(_mm512_sub_ps(splat(0.f), x))));
  // (the zero-masked forms: GCC 12's _mm512_sqrt_ps warns of its own undefined register)
  if constexpr (op == UnaryOp::sqrt) return _mm512_maskz_sqrt_ps(0xffff, x);  // correctly rounded, as std::sqrt
  if constexpr (op == UnaryOp::rsqrt)  // 1 / sqrt(x), two roundings as the scalar
    return _mm512_div_ps(one, _mm512_maskz_sqrt_ps(0xffff, x));
  if constexpr (op == UnaryOp::abs)  // the sign bit cleared, as std::fabs
    return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x7fffffff)));
  return x;
}

template <UnaryOp op>
void row(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, eval<op>(_mm512_loadu_ps(x + i)));
  if (i == n) return;
  alignas(64) float tail[16] = {};
  std::copy(x + i, x + n, tail);
  _mm512_store_ps(tail, eval<op>(_mm512_load_ps(tail)));
  std::copy(tail, tail + (n - i), y + i);
}

}  // namespace

bool vector_unary_avx512(UnaryOp op, const float* x, float* y, int64_t n) {
  switch (op) {
    case UnaryOp::exp: row<UnaryOp::exp>(x, y, n); return true;
    case UnaryOp::tanh: row<UnaryOp::tanh>(x, y, n); return true;
    case UnaryOp::sigmoid: row<UnaryOp::sigmoid>(x, y, n); return true;
    case UnaryOp::silu: row<UnaryOp::silu>(x, y, n); return true;
    case UnaryOp::sqrt: row<UnaryOp::sqrt>(x, y, n); return true;
    case UnaryOp::rsqrt: row<UnaryOp::rsqrt>(x, y, n); return true;
    case UnaryOp::abs: row<UnaryOp::abs>(x, y, n); return true;
    default: return false;
  }
}

}  // namespace polyfuse::cpu::detail

#else

namespace polyfuse::cpu::detail {

bool vector_unary_avx512(UnaryOp, const float*, float*, int64_t) { return false; }

}  // namespace polyfuse::cpu::detail

#endif
