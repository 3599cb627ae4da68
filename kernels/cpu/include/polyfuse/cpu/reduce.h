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

// The same reduction taken piece by piece (a row whose terms are computed in chunks): add()
// the row's values in order, in pieces of a multiple of kRowPartials values but the last;
// finish() is then reduce_row's result of the whole row, bit for bit.
class RowReducer {
 public:
  explicit RowReducer(RowReduction op);
  void add(const float* x, int64_t n);  // ConfigError after a piece that is not a multiple
  float finish();

 private:
  RowReduction op_;
  bool ended_ = false;  // a piece of another length came: the row's last
  alignas(64) float partials_[kRowPartials];
};

}  // namespace polyfuse::cpu
