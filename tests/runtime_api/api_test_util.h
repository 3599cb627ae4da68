// Shared helpers of the runtime API tests: f16 data and a plain GEMM reference.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "polyfuse_emu/fp16.h"

namespace pf_api_test {

inline const char* gemm_text() {
  return "# C = A * B\n"
         "def gemm(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
         "  C(m, n) +=! A(m, k) * B(k, n)\n"
         "}\n";
}

// Small integers (exact in f16, and their products' sums exact in f32).
inline std::vector<__half> pattern(std::size_t n, int seed) {
  std::vector<__half> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = __half(static_cast<float>(static_cast<int>((i * 7 + seed * 13) % 9) - 4) * 0.25f);
  return v;
}

// C = A (M x K, row-major) * B (K x N, row-major), accumulated in f32, rounded to f16.
inline std::vector<float> gemm_reference(const std::vector<__half>& a, const std::vector<__half>& b, int m, int n, int k) {
  std::vector<float> c(static_cast<std::size_t>(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float sum = 0;
      for (int p = 0; p < k; ++p) sum += float(a[static_cast<std::size_t>(i) * k + p]) * float(b[static_cast<std::size_t>(p) * n + j]);
      c[static_cast<std::size_t>(i) * n + j] = float(__half(sum));
    }
  return c;
}

}  // namespace pf_api_test
