// The AVX2 bodies of vector_math.h: compiled with -mavx2 -mfma on x86-64 only (CMake); the
// libmvec functions follow the x86-64 vector ABI ('d': AVX2, 8 floats in a ymm register).
#include "vector_math.h"

#include <algorithm>

#include "polyfuse/cpu/isa.h"

#if defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

extern "C" {
__m256 _ZGVdN8v_expf(__m256);
__m256 _ZGVdN8v_tanhf(__m256);
__m256 _ZGVdN8v_erff(__m256);
}

namespace polyfuse::cpu::detail {
namespace {

__m256 splat(float value) { return _mm256_set1_ps(value); }

// The scalar definitions of elementwise.cc (apply), operation by operation.
__m256 eval(UnaryOp op, __m256 x) {
  const __m256 one = splat(1.f);
  switch (op) {
    case UnaryOp::exp: return _ZGVdN8v_expf(x);
    case UnaryOp::tanh: return _ZGVdN8v_tanhf(x);
    case UnaryOp::sigmoid:  // 1 / (1 + exp(-x))
      return _mm256_div_ps(one, _mm256_add_ps(one, _ZGVdN8v_expf(_mm256_sub_ps(splat(0.f), x))));
    case UnaryOp::silu:  // x / (1 + exp(-x))
      return _mm256_div_ps(x, _mm256_add_ps(one, _ZGVdN8v_expf(_mm256_sub_ps(splat(0.f), x))));
    case UnaryOp::gelu: {  // 0.5 x (1 + erf(x * 0.70710678))
      const __m256 e = _ZGVdN8v_erff(_mm256_mul_ps(x, splat(0.70710678118654752f)));
      return _mm256_mul_ps(_mm256_mul_ps(splat(0.5f), x), _mm256_add_ps(one, e));
    }
    case UnaryOp::gelu_tanh: {  // 0.5 x (1 + tanh(0.79788456 (x + 0.044715 x x x)))
      const __m256 cube = _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(splat(0.044715f), x), x), x);
      const __m256 t = _ZGVdN8v_tanhf(_mm256_mul_ps(splat(0.7978845608028654f), _mm256_add_ps(x, cube)));
      return _mm256_mul_ps(_mm256_mul_ps(splat(0.5f), x), _mm256_add_ps(one, t));
    }
    case UnaryOp::sqrt: return _mm256_sqrt_ps(x);  // correctly rounded, as std::sqrt
    case UnaryOp::rsqrt: return _mm256_div_ps(one, _mm256_sqrt_ps(x));  // 1 / sqrt(x), two roundings as the scalar
    case UnaryOp::abs: return _mm256_andnot_ps(splat(-0.f), x);  // the sign bit cleared, as std::fabs
    default: return x;  // not vectorised (vector_unary_available says which are)
  }
}

template <UnaryOp op>
void row(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, eval(op, _mm256_loadu_ps(x + i)));
  if (i == n) return;
  alignas(32) float tail[8] = {};
  std::copy(x + i, x + n, tail);
  _mm256_store_ps(tail, eval(op, _mm256_load_ps(tail)));
  std::copy(tail, tail + (n - i), y + i);
}

}  // namespace

bool vector_unary_available(UnaryOp op) {
  static const bool cpu = [] {
    const Isa isa = best_isa();
    return isa == Isa::avx2 || isa == Isa::avx512;
  }();
  switch (op) {
    case UnaryOp::exp:
    case UnaryOp::tanh:
    case UnaryOp::sigmoid:
    case UnaryOp::silu:
    case UnaryOp::gelu:
    case UnaryOp::gelu_tanh:
    case UnaryOp::sqrt:
    case UnaryOp::rsqrt:
    case UnaryOp::abs: return cpu;
    default: return false;
  }
}

void vector_unary(UnaryOp op, const float* x, float* y, int64_t n) {
  static const bool wide = best_isa() == Isa::avx512;
  if (wide && vector_unary_avx512(op, x, y, n)) return;
  switch (op) {
    case UnaryOp::exp: return row<UnaryOp::exp>(x, y, n);
    case UnaryOp::tanh: return row<UnaryOp::tanh>(x, y, n);
    case UnaryOp::sigmoid: return row<UnaryOp::sigmoid>(x, y, n);
    case UnaryOp::silu: return row<UnaryOp::silu>(x, y, n);
    case UnaryOp::gelu: return row<UnaryOp::gelu>(x, y, n);
    case UnaryOp::gelu_tanh: return row<UnaryOp::gelu_tanh>(x, y, n);
    case UnaryOp::sqrt: return row<UnaryOp::sqrt>(x, y, n);
    case UnaryOp::rsqrt: return row<UnaryOp::rsqrt>(x, y, n);
    case UnaryOp::abs: return row<UnaryOp::abs>(x, y, n);
    default: return;
  }
}

}  // namespace polyfuse::cpu::detail

#else

namespace polyfuse::cpu::detail {

bool vector_unary_available(UnaryOp) { return false; }
void vector_unary(UnaryOp, const float*, float*, int64_t) {}

}  // namespace polyfuse::cpu::detail

#endif
