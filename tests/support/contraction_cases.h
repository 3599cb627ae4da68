// General contractions as the tests run them on the emulator (tests/codegen/contraction_emu_test.cc)
// and on the CPU target (tests/cpu_target/contraction_cpu_test.cc): tensordot, several
// contracted and free indices, transposed operands, batch indices in any position, TC's
// Kronecker factors (tc/benchmarks/kronecker.h), a block-diagonal product, a batch-reduce
// matmul, accumulation through a permuted output and an epilogue; sizes small and odd.
#pragma once

#include <fmt/format.h>

#include <ostream>
#include <string>
#include <vector>

#include "frontend/size_bindings.h"

namespace polyfuse::testing {

// One def: its signature with `T` for the element type, and its statements.
struct Contraction {
  std::string name;
  std::string body;  // the def's statements
  std::string signature;
  SizeBindings sizes;
};

inline void PrintTo(const Contraction& c, std::ostream* out) { *out << c.name; }

// The def of `c` with every tensor of element type `type` ("f16", "bf16", "f32").
inline std::string def_of(const Contraction& c, const std::string& type) {
  std::string signature = c.signature;
  for (std::size_t at = signature.find("T("); at != std::string::npos; at = signature.find("T(", at))
    signature.replace(at, 1, type);
  return fmt::format("def {}{} {{\n{}}}\n", c.name, signature, c.body);
}

// The cases, in a fixed order (the first is the tensordot of examples/tensordot.tc).
inline std::vector<Contraction> contractions() {
  return {
      // M=(a, b) N=(c) K=(k, l): views only.
      {"tensordot", "  O(a, b, c) +=! X(a, b, k, l) * Y(k, l, c)\n", "(T(A, B, K, L) X, T(K, L, C) Y) -> (T(A, B, C) O)",
       {{"A", 5}, {"B", 7}, {"K", 3}, {"L", 6}, {"C", 19}}},
      // Both operands transposed (A column-major, B column-major): views only.
      {"transposed", "  O(a, b, c) +=! X(k, l, a, b) * Y(c, k, l)\n", "(T(K, L, A, B) X, T(C, K, L) Y) -> (T(A, B, C) O)",
       {{"A", 3}, {"B", 11}, {"K", 5}, {"L", 4}, {"C", 9}}},
      // Three contracted indices in different orders: a copy of Y.
      {"three_index", "  O(i, j) +=! X(i, p, q, r) * Y(r, j, p, q)\n",
       "(T(I, P, Q, R) X, T(R, J, P, Q) Y) -> (T(I, J) O)", {{"I", 13}, {"J", 10}, {"P", 2}, {"Q", 3}, {"R", 5}}},
      // A batch index in the middle of each tensor: copies of X and of the output.
      {"batch_in_middle", "  O(a, b, c) +=! X(k, b, a) * Y(b, c, k)\n", "(T(K, B, A) X, T(B, C, K) Y) -> (T(A, B, C) O)",
       {{"A", 9}, {"B", 3}, {"C", 14}, {"K", 11}}},
      // TC's Kronecker factors (tc/benchmarks/kronecker.h, sizes smaller): each step one factor.
      {"kronecker3_1", "  XW2(m, n0, n1, d2) +=! X(m, n0, n1, n2) * W2(d2, n2)\n",
       "(T(D2, N2) W2, T(M, N0, N1, N2) X) -> (T(M, N0, N1, D2) XW2)",
       {{"M", 3}, {"N0", 4}, {"N1", 5}, {"N2", 6}, {"D2", 7}}},
      {"kronecker3_2", "  XW2W1(m, n0, d1, d2) +=! XW2(m, n0, n1, d2) * W1(d1, n1)\n",
       "(T(D1, N1) W1, T(M, N0, N1, D2) XW2) -> (T(M, N0, D1, D2) XW2W1)",
       {{"M", 3}, {"N0", 4}, {"N1", 5}, {"D1", 6}, {"D2", 7}}},
      {"kronecker3_3", "  Y(m, d0, d1, d2) +=! XW2W1(m, n0, d1, d2) * W0(d0, n0)\n",
       "(T(D0, N0) W0, T(M, N0, D1, D2) XW2W1) -> (T(M, D0, D1, D2) Y)",
       {{"M", 3}, {"N0", 4}, {"D0", 5}, {"D1", 6}, {"D2", 7}}},
      // A block-diagonal weight: block g of X's row times block g of W (batch g).
      {"block_diagonal", "  Y(m, g, j) +=! X(m, g, i) * W(g, i, j)\n", "(T(M, G, I) X, T(G, I, J) W) -> (T(M, G, J) Y)",
       {{"M", 10}, {"G", 3}, {"I", 9}, {"J", 6}}},
      // A batch-reduce matmul (r contracted with k): a copy of A.
      {"batch_reduce", "  C(m, n) +=! A(r, m, k) * B(r, k, n)\n", "(T(R, M, K) A, T(R, K, N) B) -> (T(M, N) C)",
       {{"R", 3}, {"M", 11}, {"N", 13}, {"K", 7}}},
      // Accumulating into the output's values through the output's permutation.
      {"accumulate_permuted", "  O(c, b, a) += X(b, a, k) * Y(k, b, c)\n",
       "(T(B, A, K) X, T(K, B, C) Y) -> (T(C, B, A) O)", {{"A", 5}, {"B", 2}, {"C", 7}, {"K", 9}}},
      // Tensordot, then a bias and an activation: epilogues of the grouped GEMM's kernel (bias by N,
      // a scale by M), the contraction's result kept as an output too.
      {"tensordot_epilogue",
       "  T(a, b, c) +=! X(a, b, k, l) * Y(k, l, c)\n  O(a, b, c) = relu(T(a, b, c) + bias(c)) * s(a, b)\n",
       "(T(A, B, K, L) X, T(K, L, C) Y, T(C) bias, T(A, B) s) -> (T(A, B, C) O, f32(A, B, C) T)",
       {{"A", 5}, {"B", 7}, {"K", 3}, {"L", 6}, {"C", 19}}},
      // The result in a temporary, then a bias and an activation (a pointwise kernel).
      {"epilogue", "  T(a, b, c) +=! X(a, k, b) * Y(k, c)\n  O(a, b, c) = relu(T(a, b, c) + bias(c))\n",
       "(T(A, K, B) X, T(K, C) Y, T(C) bias) -> (T(A, B, C) O)", {{"A", 4}, {"B", 5}, {"C", 12}, {"K", 10}}},
  };
}

}  // namespace polyfuse::testing
