// Scalar references of the Hopper test kernels (hopper_kernels.h), shared by the emulator
// tests (hopper_*_emu_test.cc) and the GPU tests (tests/gpu/gpu_hopper_test.cc): the inputs
// each kernel is run on, and the comparison of its output with a double-precision product.
#pragma once

#include <string>
#include <vector>

#include "hopper_kernels.h"

namespace pfh_test {

// The result of a comparison: how many elements differ, and the first few, described.
struct Mismatches {
  int count = 0;
  std::vector<std::string> first;  // at most 4: "D(1, 2) = 0.5, reference 0.25"
  void add(const std::string& what);
  std::string text() const;  // "" when count == 0
};

// |got - ref| <= 1e-5 * sum |terms| + 1e-6: f32 accumulation of exact 16-bit products.
bool close_to_reference(float got, double reference, double magnitude);

// D (64 x N, f32) of probe p = A (64 x kProbeK, [m][k]) * B (N x kProbeK, [n][k])^T over the
// first 16 k_steps columns of k.
Mismatches check_wgmma_probe(const WgmmaProbe& p, const std::vector<unsigned short>& a,
                             const std::vector<unsigned short>& b, const std::vector<float>& d, int k_steps);

// A GEMM problem of configuration g: A (m x k, rows of lda), B ([n][k] rows of ldb, or [k][n]
// for an N-major B), leading dimensions padded to multiples of 8 with NaNs in the padding
// (which TMA must never read).
struct GemmProblem {
  int m, n, k, lda, ldb;
  bool bf16, b_mn_major;
  std::vector<unsigned short> a, b;
};
GemmProblem make_gemm_problem(const GemmConfig& g, int m, int n, int k);
// C (m x n, f32, row-major) against the product.
Mismatches check_gemm(const GemmProblem& p, const std::vector<float>& c);

}  // namespace pfh_test
