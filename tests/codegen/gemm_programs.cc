#include "gemm_programs.h"

#include <cstring>
#include <fmt/format.h>

#include "polyfuse/cpu/types.h"
#include "support/golden.h"

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

std::string fused_source(const std::string& extra_inputs, const std::string& epilogue, const std::string& type,
                         const std::string& a, const std::string& a_ref) {
  return fmt::format("def f({0}{1}, {0}(K, N) B{2}) -> ({0}(M, N) D) {{\n  C(m, n) +=! {3} * B(k, n)\n{4}\n}}\n", type, a,
                     extra_inputs, a_ref, epilogue);
}

std::string example_source(const std::string& name) {
  return read_text_file(source_path("examples/" + name + ".tc"));
}

std::string example_test_name(const std::string& example, const SizeBindings& sizes) {
  std::string name = example;
  for (const auto& binding : sizes) name += "_" + binding.first + std::to_string(binding.second);
  return name;
}

// kernels/cpu's conversions (round to nearest even), not _Float16: clang 14 has no _Float16
// on x86-64, and the sanitizer build is clang's.
std::uint16_t to_f16_bits(float value) { return cpu::f32_to_f16(value); }

float from_f16_bits(std::uint16_t bits) { return cpu::f16_to_f32(bits); }

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

float reference_gemm_element(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k, bool a_row,
                             bool b_row, int i, int j) {
  float sum = 0.f;
  for (int l = 0; l < k; ++l) {
    float x = a_row ? a[static_cast<size_t>(i) * k + l] : a[static_cast<size_t>(l) * m + i];
    float y = b_row ? b[static_cast<size_t>(l) * n + j] : b[static_cast<size_t>(j) * k + l];
    sum += x * y;
  }
  return sum;
}

std::vector<float> reference_gemm(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k,
                                  bool a_row, bool b_row) {
  std::vector<float> c(static_cast<size_t>(m) * n, 0.f);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) c[static_cast<size_t>(i) * n + j] = reference_gemm_element(a, b, m, n, k, a_row, b_row, i, j);
  return c;
}

std::vector<std::array<int, 3>> odd_shapes() {
  std::vector<std::array<int, 3>> shapes{{1, 1, 1}, {1, 1, 17}, {1, 17, 1}, {17, 1, 1}, {2, 3, 5}, {7, 11, 13}};
  const int primes[] = {3, 13, 17, 31, 37, 61, 67, 97, 101, 127, 131};
  for (int i = 0; i < 11; ++i) shapes.push_back({primes[i], primes[(i + 3) % 11], primes[(i + 7) % 11]});
  for (int edge : {15, 16, 17, 31, 32, 33, 63, 64, 65})
    for (int other : {1, 33, 129}) shapes.push_back({edge, other, edge + other % 7});
  for (int k : {1, 7, 9, 40, 70, 96}) shapes.push_back({100, 77, k});
  shapes.push_back({129, 65, 33});
  shapes.push_back({200, 136, 72});
  shapes.push_back({1000 / 8, 77, 33});
  return shapes;
}

SizeBindings odd_shape_sizes(const std::array<int, 3>& shape, bool batched) {
  SizeBindings sizes{{"M", shape[0]}, {"N", shape[1]}, {"K", shape[2]}};
  if (batched) sizes["B"] = 1 + (shape[0] + shape[1]) % 3;
  return sizes;
}

// Each shape's comment: A row bytes (2K), B/D row bytes (2N), K tail.
std::vector<std::array<int, 3>> bound_shapes() {
  return {{130, 136, 141},  // A b16, B b128, K = 4*32 + 13
          {129, 66, 100},   // A b64, B b32, K = 3*32 + 4
          {200, 68, 72},    // A b128, B b64, K = 2*32 + 8
          {65, 129, 64},    // B b16, no K tail
          {128, 128, 96},   // every block full: one body
          {64, 200, 161},   // A b16, B b128, K = 5*32 + 1
          {1, 1, 1}};
}

GpuOptions small_tiles() {
  GpuOptions o;
  o.block = {64, 64, 32};
  o.warp = {32, 32, 32};
  return o;
}

}  // namespace polyfuse::testing
