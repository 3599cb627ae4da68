// The 16-lane bodies of vector_math.h on AVX-512 machines: compiled with -mavx512f -mfma on x86-64
// only (CMake); vector_exp.h's exp, vector_erf.h's erf and vector_log.h's log (the 8-lane path's
// bits) and glibc's libmvec AVX-512 tanhf ('e': 16 floats in a zmm register), composed as
// vector_math_x86.cc composes the 8-lane ones: exp, sigmoid, silu, gelu (erf form), tanh, log, and
// the exact sqrt, rsqrt, abs (gelu_tanh stays 8 lanes wide). libmvec's 16-lane erff errs by 4 u, past the model's bound
// (tests/kernels_cpu/vector_math_test.cc): erf is ours.
#include "vector_math.h"

#include <algorithm>

#include "vector_erf.h"
#include "vector_log.h"

#if defined(__x86_64__) && defined(__AVX512F__) && defined(__FMA__)
#include <immintrin.h>

extern "C" {
__m512 _ZGVeN16v_tanhf(__m512);
}

namespace polyfuse::cpu::detail {
namespace {

__m512 splat(float value) { return _mm512_set1_ps(value); }

// The operations of vector_exp.h on 16 lanes (those of vector_math_x86.cc's Lanes8, wider; the
// zero-masked forms where GCC 12's plain ones warn of their own undefined register).
struct Lanes16 {
  using V = __m512;
  using I = __m512i;
  static V splat(float value) { return _mm512_set1_ps(value); }
  static V min(V a, V b) { return _mm512_maskz_min_ps(0xffff, a, b); }
  static V max(V a, V b) { return _mm512_maskz_max_ps(0xffff, a, b); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V div(V a, V b) { return _mm512_div_ps(a, b); }
  static V abs(V a) { return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a), _mm512_set1_epi32(0x7fffffff))); }
  static V copy_sign(V magnitude, V sign) {  // |magnitude| with sign's sign bit
    const __m512i bit = _mm512_set1_epi32(static_cast<int>(0x80000000u)), rest = _mm512_set1_epi32(0x7fffffff);
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_and_si512(rest, _mm512_castps_si512(magnitude)),
                                               _mm512_and_si512(bit, _mm512_castps_si512(sign))));
  }
  static V select_less(V a, V b, V if_less, V otherwise) {
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_LT_OQ), otherwise, if_less);
  }
  static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V fnmadd(V a, V b, V c) { return _mm512_fnmadd_ps(a, b, c); }
  static V round(V a) { return _mm512_maskz_roundscale_ps(0xffff, a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static V scale(V p, V n) { return _mm512_maskz_scalef_ps(0xffff, p, n); }  // p 2^n, rounded once
  // vector_log.h's bit operations.
  static I splat_i(int value) { return _mm512_set1_epi32(value); }
  static I bits(V a) { return _mm512_castps_si512(a); }
  static V from_bits(I a) { return _mm512_castsi512_ps(a); }
  static I add_i(I a, I b) { return _mm512_add_epi32(a, b); }
  static I sub_i(I a, I b) { return _mm512_sub_epi32(a, b); }
  static I and_i(I a, I b) { return _mm512_and_si512(a, b); }
  static I shift_right_23(I a) { return _mm512_maskz_srai_epi32(0xffff, a, 23); }  // arithmetic
  static V to_float(I a) { return _mm512_maskz_cvtepi32_ps(0xffff, a); }
};

__m512 exp16(__m512 x) { return exp_lanes<Lanes16>(x); }
__m512 erf16(__m512 x) { return erf_lanes<Lanes16>(x); }
__m512 log16(__m512 x) { return log_lanes<Lanes16>(x); }

// The scalar definitions of elementwise.cc (apply), operation by operation.
template <UnaryOp op>
__m512 eval(__m512 x) {
  const __m512 one = splat(1.f);
  if constexpr (op == UnaryOp::exp) return exp16(x);
  if constexpr (op == UnaryOp::tanh) return _ZGVeN16v_tanhf(x);
  if constexpr (op == UnaryOp::sigmoid)  // 1 / (1 + exp(-x))
    return _mm512_div_ps(one, _mm512_add_ps(one, exp16(_mm512_sub_ps(splat(0.f), x))));
  if constexpr (op == UnaryOp::silu)  // x / (1 + exp(-x))
    return _mm512_div_ps(x, _mm512_add_ps(one, exp16(_mm512_sub_ps(splat(0.f), x))));
  if constexpr (op == UnaryOp::gelu) {  // 0.5 x (1 + erf(x * 0.70710678))
    const __m512 e = erf16(_mm512_mul_ps(x, splat(0.70710678118654752f)));
    return _mm512_mul_ps(_mm512_mul_ps(splat(0.5f), x), _mm512_add_ps(one, e));
  }
  // (the zero-masked forms: GCC 12's _mm512_sqrt_ps warns of its own undefined register)
  if constexpr (op == UnaryOp::sqrt) return _mm512_maskz_sqrt_ps(0xffff, x);  // correctly rounded, as std::sqrt
  if constexpr (op == UnaryOp::rsqrt)  // 1 / sqrt(x), two roundings as the scalar
    return _mm512_div_ps(one, _mm512_maskz_sqrt_ps(0xffff, x));
  if constexpr (op == UnaryOp::log) return log16(x);
  if constexpr (op == UnaryOp::abs)  // the sign bit cleared, as std::fabs
    return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x7fffffff)));
  return x;
}

// `count` rows of n elements, `ld` apart, in one loop (a BRGEMM tile's columns: no call per column).
template <UnaryOp op>
void rows(const float* x, float* y, int64_t n, int64_t count, int64_t ld) {
  for (int64_t r = 0; r < count; ++r, x += ld, y += ld) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, eval<op>(_mm512_loadu_ps(x + i)));
    if (i == n) continue;
    alignas(64) float tail[16] = {};
    std::copy(x + i, x + n, tail);
    _mm512_store_ps(tail, eval<op>(_mm512_load_ps(tail)));
    std::copy(tail, tail + (n - i), y + i);
  }
}

// y[i] = post(a[i] op b[i]) for i < n, a broadcast operand read once (a_step or b_step 0): the
// binary operation (one IEEE operation a lane) and post in registers, one pass.
template <UnaryOp post, class Op>
void binary_rows(const float* a, int64_t a_step, const float* b, int64_t b_step, float* y, int64_t n, Op op) {
  const __m512 a_value = _mm512_set1_ps(*a), b_value = _mm512_set1_ps(*b);
  const auto at = [](const float* p, int64_t step, int64_t i, __m512 value) {
    return step == 0 ? value : _mm512_loadu_ps(p + i);
  };
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, eval<post>(op(at(a, a_step, i, a_value), at(b, b_step, i, b_value))));
  if (i == n) return;
  alignas(64) float x[16] = {}, z[16] = {};
  for (int64_t j = 0; i + j < n; ++j) x[j] = a[(i + j) * a_step], z[j] = b[(i + j) * b_step];
  _mm512_store_ps(x, eval<post>(op(_mm512_load_ps(x), _mm512_load_ps(z))));
  std::copy(x, x + (n - i), y + i);
}

template <UnaryOp post>
bool binary_rows(BinaryOp op, const float* a, int64_t a_step, const float* b, int64_t b_step, float* y, int64_t n) {
  switch (op) {
    case BinaryOp::add: binary_rows<post>(a, a_step, b, b_step, y, n, [](__m512 x, __m512 z) { return _mm512_add_ps(x, z); }); return true;
    case BinaryOp::sub: binary_rows<post>(a, a_step, b, b_step, y, n, [](__m512 x, __m512 z) { return _mm512_sub_ps(x, z); }); return true;
    case BinaryOp::mul: binary_rows<post>(a, a_step, b, b_step, y, n, [](__m512 x, __m512 z) { return _mm512_mul_ps(x, z); }); return true;
    case BinaryOp::div: binary_rows<post>(a, a_step, b, b_step, y, n, [](__m512 x, __m512 z) { return _mm512_div_ps(x, z); }); return true;
    default: return false;  // max and min: their scalar NaN rules stay with the scalar code
  }
}

}  // namespace

bool vector_binary_unary_avx512(BinaryOp op, UnaryOp post, const float* a, int64_t a_step, const float* b,
                                int64_t b_step, float* y, int64_t n) {
  switch (post) {
    case UnaryOp::exp: return binary_rows<UnaryOp::exp>(op, a, a_step, b, b_step, y, n);
    case UnaryOp::tanh: return binary_rows<UnaryOp::tanh>(op, a, a_step, b, b_step, y, n);
    case UnaryOp::sigmoid: return binary_rows<UnaryOp::sigmoid>(op, a, a_step, b, b_step, y, n);
    case UnaryOp::silu: return binary_rows<UnaryOp::silu>(op, a, a_step, b, b_step, y, n);
    case UnaryOp::gelu: return binary_rows<UnaryOp::gelu>(op, a, a_step, b, b_step, y, n);
    case UnaryOp::sqrt: return binary_rows<UnaryOp::sqrt>(op, a, a_step, b, b_step, y, n);
    case UnaryOp::rsqrt: return binary_rows<UnaryOp::rsqrt>(op, a, a_step, b, b_step, y, n);
    case UnaryOp::abs: return binary_rows<UnaryOp::abs>(op, a, a_step, b, b_step, y, n);
    case UnaryOp::log: return binary_rows<UnaryOp::log>(op, a, a_step, b, b_step, y, n);
    default: return false;
  }
}

bool vector_unary_avx512(UnaryOp op, const float* x, float* y, int64_t n, int64_t count, int64_t ld) {
  switch (op) {
    case UnaryOp::exp: rows<UnaryOp::exp>(x, y, n, count, ld); return true;
    case UnaryOp::tanh: rows<UnaryOp::tanh>(x, y, n, count, ld); return true;
    case UnaryOp::sigmoid: rows<UnaryOp::sigmoid>(x, y, n, count, ld); return true;
    case UnaryOp::silu: rows<UnaryOp::silu>(x, y, n, count, ld); return true;
    case UnaryOp::gelu: rows<UnaryOp::gelu>(x, y, n, count, ld); return true;
    case UnaryOp::sqrt: rows<UnaryOp::sqrt>(x, y, n, count, ld); return true;
    case UnaryOp::rsqrt: rows<UnaryOp::rsqrt>(x, y, n, count, ld); return true;
    case UnaryOp::abs: rows<UnaryOp::abs>(x, y, n, count, ld); return true;
    case UnaryOp::log: rows<UnaryOp::log>(x, y, n, count, ld); return true;
    default: return false;
  }
}

}  // namespace polyfuse::cpu::detail

#else

namespace polyfuse::cpu::detail {

bool vector_unary_avx512(UnaryOp, const float*, float*, int64_t, int64_t, int64_t) { return false; }
bool vector_binary_unary_avx512(BinaryOp, UnaryOp, const float*, int64_t, const float*, int64_t, float*, int64_t) {
  return false;
}

}  // namespace polyfuse::cpu::detail

#endif
