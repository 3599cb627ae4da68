// The idioms of the GPU benchmark (issue 7, the paper's §VIII): what each computes, its
// .tc program for polyfuse, and its tensors in signature order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/gpu/sizes.h"

namespace polyfuse::bench {

// Element type of every tensor of a problem (accumulation is always f32).
enum class DType { f16, bf16 };
// "f16", "bf16".
std::string to_string(DType type);
// The DType named `text`, else nullopt.
std::optional<DType> parse_dtype(const std::string& text);
// Both element types, f16 first.
const std::vector<DType>& all_dtypes();

// The row reduction after the matmul (issue 20), over each row of C(m, n) = A * B:
//   softmax    D(m, n) = exp(C(m, n) - max_n C(m, n)) / sum_n exp(C(m, n) - max_n C(m, n))
//   layernorm  X = C + bias(n); D(m, n) = (X - mean) * rsqrt(var + 1e-5) * gamma(n) + beta(n)
//              with mean and the centred variance over n (two passes, as the .tc writes it)
enum class RowOp { none, softmax, layernorm };
// "none", "softmax", "layernorm".
std::string to_string(RowOp row);

// The pointwise function applied after the bias (or none).
enum class Activation { none, relu, tanh, gelu };
// "none", "relu", "tanh", "gelu".
std::string to_string(Activation activation);

// One idiom. Every idiom computes, for each batch b (one when not batched):
//   C(m, n) = sum_k A'(m, k) * B(k, n)   with A' = relu(A) when relu_prologue, else A
//   C(m, n) += sum_k E(m, k) * F(k, n)   when second_matmul
//   D(m, n) = act(C(m, n) + bias(n))     (no bias / act when absent)
// or, for the gated idiom (SwiGLU's gate, issue 21), D(m, n) = silu(C(m, n)) * U(m, n) with
// U(m, n) = sum_k A(m, k) * F(k, n): two matmuls that read the same A; or, for the row
// idioms, a row reduction of C (RowOp).
// in f32, D rounded once to the element type (the reference evaluator's semantics).
struct Idiom {
  std::string name;             // "gemm_bias_relu": CSV, command line
  std::string title;            // "GEMM + bias + ReLU": summary, plot
  bool relu_prologue = false;   // relu on the A operand before the matmul
  bool second_matmul = false;   // Add(GEMM, GEMM): D = A*B + E*F
  bool gated = false;           // SwiGLU's gate: D = silu(A*B) * (A*F)
  bool bias = false;            // + bias(n), broadcast over rows (and batches)
  Activation activation = Activation::none;
  RowOp row = RowOp::none;      // softmax / layer norm over each row of C (issue 20)
  bool batched = false;         // A(b, m, k), B(b, k, n), D(b, m, n)
  bool in_issue = true;         // one of issue 7's idioms (false: an extra one)
};

// Every idiom in the order they are reported: issue 7's six, then GEMM + bias + GELU
// (extra: the idiom of cuBLASLt's GELU_BIAS epilogue), SwiGLU's gate (issue 21), GEMM +
// softmax and GEMM + bias + LayerNorm (issue 20).
const std::vector<Idiom>& all_idioms();
// The idiom named `name`, else nullptr.
const Idiom* find_idiom(const std::string& name);

// The .tc program of `idiom` with element type `type` (sizes M, N, K, and NB for the
// batch count, left unbound). Its def is named after the idiom.
std::string tc_source(const Idiom& idiom, DType type);

// One tensor of a problem.
struct TensorSpec {
  std::string name;                  // as in the .tc signature: A, B, E, F, bias, D
  std::vector<std::int64_t> shape;   // outermost first
  bool output = false;

  // The product of the shape's extents.
  std::int64_t elements() const;
};

// The tensors of `idiom` at `size`, in the .tc signature order (inputs, then D).
std::vector<TensorSpec> tensors(const Idiom& idiom, const ProblemSize& size);

// Matmul flops of one problem (both matmuls of Add(GEMM, GEMM)).
double idiom_flops(const Idiom& idiom, const ProblemSize& size);

}  // namespace polyfuse::bench
