// Unary and binary primitives on M x N matrices (seed: primitives-brgemm-neon §7.3).
//
// Hard-coded when the kernel object is made: the operation, M and N, the layout (and
// broadcast kind) of every operand, and the dtypes. Run time: pointers and leading
// dimensions. All arithmetic is f32; f16/bf16 operands are converted on the way in and
// out, so an identity Unary from f32 to bf16 is also the conversion primitive.
// The objects are immutable and callable from many threads at once; in-place use
// (output == input with the same layout and leading dimension) is allowed.
#pragma once

#include <cstdint>
#include <cstring>

#include "polyfuse/cpu/types.h"

namespace polyfuse::cpu {

// zero: B := 0 (A unused, may be null); identity: B := A (a transposition when the
// layouts differ, a conversion when the dtypes differ); the rest are the pointwise
// activations of the .tc language, matching the GPU path (kernels/cuda/pf_pointwise.cuh):
//   gelu(x) = 0.5 x (1 + erf(x / sqrt 2))  (the exact form: the language's gelu_erf),
//   gelu_tanh(x) = 0.5 x (1 + tanh(0.7978845608 (x + 0.044715 x^3))),
//   sigmoid(x) = 1 / (1 + exp(-x)),  silu(x) = x / (1 + exp(-x)),  rsqrt(x) = 1 / sqrt(x),
//   round_f16(x), round_bf16(x) = x rounded to f16 / bf16 (nearest even), as an f32 value.
enum class UnaryOp {
  zero, identity, relu, sigmoid, tanh, gelu, exp, neg, sqrt, rsqrt, log, abs, silu, gelu_tanh, round_f16, round_bf16
};

enum class BinaryOp { add, sub, mul, div, max, min };

const char* to_string(UnaryOp op);
const char* to_string(BinaryOp op);
float apply(UnaryOp op, float x);              // the scalar definition
float apply(BinaryOp op, float x, float y);    // the scalar definition

// Binary's max and min of one pair, for the generated code's own loops: x > y ? x : y (x < y ? x :
// y; y when either is NaN), what every ISA path of Binary computes. Written as a select of bits by
// the comparison's mask, not a branch: generated code is built with -fno-tree-loop-if-convert,
// under which GCC leaves a loop with `?:` scalar, but vectorises this (a compare and a masked move).
namespace detail {
inline float select_bits(bool first, float x, float y) {
  std::uint32_t x_bits, y_bits;
  std::memcpy(&x_bits, &x, sizeof x);
  std::memcpy(&y_bits, &y, sizeof y);
  const std::uint32_t mask = 0u - static_cast<std::uint32_t>(first);
  const std::uint32_t bits = (x_bits & mask) | (y_bits & ~mask);
  float result;
  std::memcpy(&result, &bits, sizeof result);
  return result;
}
}  // namespace detail
inline float binary_max(float x, float y) { return detail::select_bits(x > y, x, y); }
inline float binary_min(float x, float y) { return detail::select_bits(x < y, x, y); }
// Unary's abs of one value (the sign bit cleared, as std::fabs), for the same loops.
inline float unary_abs(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof x);
  bits &= 0x7fffffffu;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// How an input operand covers the M x N iteration space. Element (m, n) is read at:
//   matrix + col_major: p[m + n*ld]     matrix + row_major: p[m*ld + n]
//   row_vector (one value per column, e.g. bias(n)):  p[n*ld]   (ld = 1 when contiguous)
//   col_vector (one value per row, e.g. scale(m)):    p[m*ld]
//   scalar: p[0]
enum class Broadcast { matrix, row_vector, col_vector, scalar };

struct Operand {
  Layout layout = Layout::col_major;
  DType dtype = DType::f32;
  Broadcast broadcast = Broadcast::matrix;
};

struct UnaryConfig {
  int64_t m = 0;
  int64_t n = 0;
  UnaryOp op = UnaryOp::identity;
  Operand in;   // ignored for zero
  Operand out;  // broadcast must be matrix
};

class Unary {
 public:
  explicit Unary(const UnaryConfig& config);  // throws ConfigError
  // out := op(in). For zero, `in` and `ld_in` are ignored.
  void operator()(const void* in, void* out, int64_t ld_in, int64_t ld_out) const;
  const UnaryConfig& config() const { return config_; }

 private:
  UnaryConfig config_;
  Isa isa_;  // the vector path of an f32 transposition and of f32 rows (best_isa() when made)
};

struct BinaryConfig {
  int64_t m = 0;
  int64_t n = 0;
  BinaryOp op = BinaryOp::add;
  Operand in0;
  Operand in1;
  Operand out;  // broadcast must be matrix
  // Applied to each result in f32 before it is stored (out := post(in0 op in1)): an epilogue
  // relu(C + bias) in one pass, rounded once to the output's dtype. zero is refused.
  UnaryOp post = UnaryOp::identity;
};

class Binary {
 public:
  explicit Binary(const BinaryConfig& config);  // throws ConfigError
  // out := in0 op in1.
  void operator()(const void* in0, const void* in1, void* out, int64_t ld_in0,
                  int64_t ld_in1, int64_t ld_out) const;
  const BinaryConfig& config() const { return config_; }

 private:
  BinaryConfig config_;
  Isa isa_;  // the vector path of its f32 rows (best_isa() when made): the same bits on every path
};

}  // namespace polyfuse::cpu
