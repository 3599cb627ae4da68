#include "gemm_programs.h"

#include <cstring>
#include <fmt/format.h>

namespace polyfuse::testing {

std::string gemm_source(const std::string& type, bool a_row, bool b_row) {
  std::string a_decl = a_row ? "(M, K) A" : "(K, M) A";
  std::string b_decl = b_row ? "(K, N) B" : "(N, K) B";
  std::string a_ref = a_row ? "A(m, k)" : "A(k, m)";
  std::string b_ref = b_row ? "B(k, n)" : "B(n, k)";
  return fmt::format("def gemm({0}{1}, {0}{2}) -> ({0}(M, N) C) {{\n  C(m, n) +=! {3} * {4}\n}}\n", type, a_decl, b_decl,
                     a_ref, b_ref);
}

Program compile_program(const std::string& source, const SizeBindings& sizes) {
  return compile_source(SourceFile{"test.tc", source}, sizes).programs.at(0);
}

std::uint16_t to_f16_bits(float value) {
  _Float16 h = static_cast<_Float16>(value);
  std::uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}

float from_f16_bits(std::uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, 2);
  return static_cast<float>(h);
}

std::uint16_t to_bf16_bits(float value) {
  std::uint32_t u;
  std::memcpy(&u, &value, 4);
  u += 0x7fff + ((u >> 16) & 1);  // round to nearest even (finite inputs)
  return static_cast<std::uint16_t>(u >> 16);
}

float from_bf16_bits(std::uint16_t bits) {
  std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

std::vector<float> reference_gemm(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k,
                                  bool a_row, bool b_row) {
  std::vector<float> c(static_cast<size_t>(m) * n, 0.f);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float sum = 0.f;
      for (int l = 0; l < k; ++l) {
        float x = a_row ? a[static_cast<size_t>(i) * k + l] : a[static_cast<size_t>(l) * m + i];
        float y = b_row ? b[static_cast<size_t>(l) * n + j] : b[static_cast<size_t>(j) * k + l];
        sum += x * y;
      }
      c[static_cast<size_t>(i) * n + j] = sum;
    }
  return c;
}

}  // namespace polyfuse::testing
