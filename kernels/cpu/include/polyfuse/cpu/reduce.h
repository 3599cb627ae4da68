// Reductions of one contiguous row to a value: the CPU target's row statistics (softmax's max
// and sum, a mean), which a scalar loop computes one dependent addition at a time.
//
// The order is fixed, and the same on every ISA path and thread count: element i goes to
// partial j = i mod kRowPartials, each partial reduced in increasing i from the operation's
// identity; then partial j combines with partial j + 16 (partial j the left operand), the
// survivors with j + 8, + 4, + 2, + 1. Every path computes exactly these operations (the
// vector ones keep one partial per lane), so results are bit-identical across paths. A sum's rounding differs
// from a sequential sum's (within the usual bound); max and min ignore NaN operands, as the
// reference does (std::max(acc, x)), and are exact.
#pragma once

#include <cstdint>
#include <cstring>

#include "polyfuse/cpu/types.h"

namespace polyfuse::cpu {

enum class RowReduction { sum, max, min };

constexpr int64_t kRowPartials = 32;

// The reduction of x[0], ..., x[n - 1] (n >= 0; the identity for n = 0: 0, -inf, +inf).
float reduce_row(RowReduction op, const float* x, int64_t n);
// The same of f16 or bf16 bit patterns (`dtype`), each widened exactly to f32 first.
float reduce_row(RowReduction op, const uint16_t* x, DType dtype, int64_t n);

// Whether none of x[0], ..., x[n - 1] is infinite or NaN (true for n = 0): a convolution's
// check that its filter's products with a zero border are zeros, so that skipping them
// changes no sum (codegen/cpu_border_taps_code.h). Inline: the caller's compiler vectorises the
// loop for its target (generated code is built with -march=native: 16 lanes on AVX-512).
inline bool all_finite(const float* x, int64_t n) {
  std::uint32_t all_ones = 0;  // an exponent of all ones: infinite or NaN
  for (int64_t i = 0; i < n; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, x + i, sizeof bits);
    all_ones |= std::uint32_t((bits & 0x7f800000u) == 0x7f800000u);
  }
  return all_ones == 0;
}
// The same of f16 or bf16 bit patterns (`dtype`; any other dtype: false).
inline bool all_finite(const uint16_t* x, DType dtype, int64_t n) {
  const uint16_t exponent = dtype == DType::f16 ? 0x7c00u : dtype == DType::bf16 ? 0x7f80u : 0;
  if (exponent == 0) return false;
  uint16_t all_ones = 0;
  for (int64_t i = 0; i < n; ++i) all_ones |= uint16_t((x[i] & exponent) == exponent);
  return all_ones == 0;
}

// The same reduction of term(0), ..., term(n - 1) (n >= 0), each term computed where it is
// reduced: a row statistic of an expression (`mean(m) +=! X(m, n) / N`, `var(m) +=! d * d / N`)
// with no buffer of its terms. Inline, for the caller's compiler: the terms are computed
// kRowPartials at a time (a loop it vectorises for its target when term allows), the partials
// stay in registers; the operations and their order are reduce_row's, so the bits are.
template <RowReduction OP, class Term>
[[gnu::always_inline]] inline float reduce_terms(int64_t n, Term term);

namespace detail {
// Eight or four consecutive partials as one value (GCC's vector extensions), as in reduce.cc;
// they cross functions by reference only (no ABI, and no -Wpsabi, is involved).
using RowLanes8 = float __attribute__((vector_size(32)));
using RowLanes4 = float __attribute__((vector_size(16)));

template <class V>
[[gnu::always_inline]] inline void load_lanes(V& v, const float* p) {
  std::memcpy(&v, p, sizeof v);
}

// acc = reduce.h's combine of acc and x (acc the left operand; max and min keep acc when x is NaN).
template <RowReduction OP, class V>
[[gnu::always_inline]] inline void combine_row(V& acc, const V& x) {
  if constexpr (OP == RowReduction::sum) acc = acc + x;
  else if constexpr (OP == RowReduction::max) acc = x > acc ? x : acc;
  else acc = x < acc ? x : acc;
}

template <RowReduction OP>
constexpr float row_identity() {
  return OP == RowReduction::sum ? 0.0f : OP == RowReduction::max ? -__builtin_inff() : __builtin_inff();
}

// The tree of the partials p[0..kRowPartials) (clobbered): partial j with j + 16 (widths 16 and 8
// on RowLanes8, 4 on RowLanes4), the survivors with + 8, + 4, + 2, + 1 (scalars).
template <RowReduction OP>
[[gnu::always_inline]] inline float finish_row_partials(float* p) {
  static_assert(kRowPartials == 32, "the partials are four RowLanes8");
  RowLanes8 low, high, x;
  load_lanes(low, p), load_lanes(x, p + 16), combine_row<OP>(low, x);
  load_lanes(high, p + 8), load_lanes(x, p + 24), combine_row<OP>(high, x);
  combine_row<OP>(low, high);
  std::memcpy(p, &low, sizeof low);
  RowLanes4 w4, upper;
  load_lanes(w4, p), load_lanes(upper, p + 4), combine_row<OP>(w4, upper);
  float even = w4[0], odd = w4[1];
  const float even_x = w4[2], odd_x = w4[3];
  combine_row<OP>(even, even_x), combine_row<OP>(odd, odd_x), combine_row<OP>(even, odd);
  return even;
}
}  // namespace detail

template <RowReduction OP, class Term>
[[gnu::always_inline]] inline float reduce_terms(int64_t n, Term term) {
  using detail::combine_row, detail::load_lanes, detail::RowLanes8;
  constexpr float identity = detail::row_identity<OP>();
  RowLanes8 q0 = {identity, identity, identity, identity, identity, identity, identity, identity};
  RowLanes8 q1 = q0, q2 = q0, q3 = q0, x;
  alignas(64) float terms[kRowPartials];
  int64_t base = 0;
  for (; base + kRowPartials <= n; base += kRowPartials) {  // term base + j to partial j
    for (int64_t j = 0; j < kRowPartials; ++j) terms[j] = term(base + j);
    load_lanes(x, terms), combine_row<OP>(q0, x), load_lanes(x, terms + 8), combine_row<OP>(q1, x);
    load_lanes(x, terms + 16), combine_row<OP>(q2, x), load_lanes(x, terms + 24), combine_row<OP>(q3, x);
  }
  alignas(64) float p[kRowPartials];
  std::memcpy(p, &q0, sizeof q0), std::memcpy(p + 8, &q1, sizeof q1);
  std::memcpy(p + 16, &q2, sizeof q2), std::memcpy(p + 24, &q3, sizeof q3);
  for (int64_t j = 0; base + j < n; ++j) {
    const float t = term(base + j);
    combine_row<OP>(p[j], t);
  }
  return detail::finish_row_partials<OP>(p);
}

}  // namespace polyfuse::cpu
