// The AVX2 bodies of vector_math.h: compiled with -mavx2 -mfma on x86-64 only (CMake); the
// libmvec functions follow the x86-64 vector ABI ('d': AVX2, 8 floats in a ymm register); exp,
// erf and log are vector_exp.h's, vector_erf.h's and vector_log.h's.
#include "vector_math.h"

#include <algorithm>

#include "vector_erf.h"
#include "vector_log.h"

#include "polyfuse/cpu/isa.h"

#if defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

extern "C" {
__m256 _ZGVdN8v_tanhf(__m256);
}

namespace polyfuse::cpu::detail {
namespace {

__m256 splat(float value) { return _mm256_set1_ps(value); }

// The operations of vector_exp.h on 8 lanes.
struct Lanes8 {
  using V = __m256;
  using I = __m256i;
  static V splat(float value) { return _mm256_set1_ps(value); }
  static V min(V a, V b) { return _mm256_min_ps(a, b); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V div(V a, V b) { return _mm256_div_ps(a, b); }
  static V abs(V a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.f), a); }
  static V copy_sign(V magnitude, V sign) {  // |magnitude| with sign's sign bit
    const V bit = _mm256_set1_ps(-0.f);
    return _mm256_or_ps(_mm256_andnot_ps(bit, magnitude), _mm256_and_ps(bit, sign));
  }
  static V select_less(V a, V b, V if_less, V otherwise) {
    return _mm256_blendv_ps(otherwise, if_less, _mm256_cmp_ps(a, b, _CMP_LT_OQ));
  }
  static V fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V fnmadd(V a, V b, V c) { return _mm256_fnmadd_ps(a, b, c); }
  static V round(V a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  // p 2^n for n an integer in [-150, 128]: 2^n1 2^n2, n1 = n >> 1, each a normal float.
  static V scale(V p, V n) {
    const I n_all = _mm256_cvtps_epi32(n);
    const I n1 = _mm256_srai_epi32(n_all, 1);
    return mul(mul(p, power_of_two(n1)), power_of_two(_mm256_sub_epi32(n_all, n1)));
  }
  static V power_of_two(I e) { return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(e, _mm256_set1_epi32(127)), 23)); }
  // vector_log.h's bit operations.
  static I splat_i(int value) { return _mm256_set1_epi32(value); }
  static I bits(V a) { return _mm256_castps_si256(a); }
  static V from_bits(I a) { return _mm256_castsi256_ps(a); }
  static I add_i(I a, I b) { return _mm256_add_epi32(a, b); }
  static I sub_i(I a, I b) { return _mm256_sub_epi32(a, b); }
  static I and_i(I a, I b) { return _mm256_and_si256(a, b); }
  static I shift_right_23(I a) { return _mm256_srai_epi32(a, 23); }  // arithmetic
  static V to_float(I a) { return _mm256_cvtepi32_ps(a); }
};

__m256 exp8(__m256 x) { return exp_lanes<Lanes8>(x); }
__m256 erf8(__m256 x) { return erf_lanes<Lanes8>(x); }
__m256 log8(__m256 x) { return log_lanes<Lanes8>(x); }

// The scalar definitions of elementwise.cc (apply), operation by operation.
__m256 eval(UnaryOp op, __m256 x) {
  const __m256 one = splat(1.f);
  switch (op) {
    case UnaryOp::exp: return exp8(x);
    case UnaryOp::tanh: return _ZGVdN8v_tanhf(x);
    case UnaryOp::sigmoid:  // 1 / (1 + exp(-x))
      return _mm256_div_ps(one, _mm256_add_ps(one, exp8(_mm256_sub_ps(splat(0.f), x))));
    case UnaryOp::silu:  // x / (1 + exp(-x))
      return _mm256_div_ps(x, _mm256_add_ps(one, exp8(_mm256_sub_ps(splat(0.f), x))));
    case UnaryOp::gelu: {  // 0.5 x (1 + erf(x * 0.70710678))
      const __m256 e = erf8(_mm256_mul_ps(x, splat(0.70710678118654752f)));
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
    case UnaryOp::log: return log8(x);
    default: return x;  // not vectorised (vector_unary_available says which are)
  }
}

// `count` rows of n elements, `ld` apart, in one loop (a BRGEMM tile's columns: no call per column).
template <UnaryOp op>
void rows(const float* x, float* y, int64_t n, int64_t count, int64_t ld) {
  for (int64_t r = 0; r < count; ++r, x += ld, y += ld) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, eval(op, _mm256_loadu_ps(x + i)));
    if (i == n) continue;
    alignas(32) float tail[8] = {};
    std::copy(x + i, x + n, tail);
    _mm256_store_ps(tail, eval(op, _mm256_load_ps(tail)));
    std::copy(tail, tail + (n - i), y + i);
  }
}

}  // namespace

bool vector_unary_available(Isa isa, UnaryOp op) {
  const bool cpu = isa == Isa::avx2 || isa == Isa::avx512;
  switch (op) {
    case UnaryOp::exp:
    case UnaryOp::tanh:
    case UnaryOp::sigmoid:
    case UnaryOp::silu:
    case UnaryOp::gelu:
    case UnaryOp::gelu_tanh:
    case UnaryOp::sqrt:
    case UnaryOp::rsqrt:
    case UnaryOp::abs:
    case UnaryOp::log: return cpu;
    default: return false;
  }
}

void vector_unary(Isa isa, UnaryOp op, const float* x, float* y, int64_t n, int64_t count, int64_t ld) {
  if (isa == Isa::avx512 && vector_unary_avx512(op, x, y, n, count, ld)) return;
  if (isa != Isa::avx512 && isa != Isa::avx2) {
    for (int64_t r = 0; r < count; ++r)
      for (int64_t i = 0; i < n; ++i) y[r * ld + i] = apply(op, x[r * ld + i]);
    return;
  }
  switch (op) {
    case UnaryOp::exp: return rows<UnaryOp::exp>(x, y, n, count, ld);
    case UnaryOp::tanh: return rows<UnaryOp::tanh>(x, y, n, count, ld);
    case UnaryOp::sigmoid: return rows<UnaryOp::sigmoid>(x, y, n, count, ld);
    case UnaryOp::silu: return rows<UnaryOp::silu>(x, y, n, count, ld);
    case UnaryOp::gelu: return rows<UnaryOp::gelu>(x, y, n, count, ld);
    case UnaryOp::gelu_tanh: return rows<UnaryOp::gelu_tanh>(x, y, n, count, ld);
    case UnaryOp::sqrt: return rows<UnaryOp::sqrt>(x, y, n, count, ld);
    case UnaryOp::rsqrt: return rows<UnaryOp::rsqrt>(x, y, n, count, ld);
    case UnaryOp::abs: return rows<UnaryOp::abs>(x, y, n, count, ld);
    case UnaryOp::log: return rows<UnaryOp::log>(x, y, n, count, ld);
    default: return;
  }
}

}  // namespace polyfuse::cpu::detail

#else

namespace polyfuse::cpu::detail {

bool vector_unary_available(Isa, UnaryOp) { return false; }
void vector_unary(Isa, UnaryOp, const float*, float*, int64_t, int64_t, int64_t) {}

}  // namespace polyfuse::cpu::detail

#endif
