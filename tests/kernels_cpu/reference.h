// Scalar references and test data for the kernels/cpu tests.
#pragma once

#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "polyfuse/cpu/kernels.h"

namespace polyfuse::cpu {
// Readable test parameters ("avx2" rather than bytes).
inline void PrintTo(Isa isa, std::ostream* os) { *os << to_string(isa); }
}  // namespace polyfuse::cpu

namespace polyfuse::cpu::testing {

// Every ISA path compiled for this architecture (the test skips the unsupported ones).
std::vector<Isa> all_isas();
// True when running under an emulator (POLYFUSE_TEST_EMULATED set): tests bound sizes.
bool emulated();

// Random values in [-1, 1] stored as `dtype` (bytes), and the same values as f32 after
// rounding to dtype, so references see exactly what the kernel sees.
struct Buffer {
  DType dtype = DType::f32;
  std::vector<uint8_t> bytes;
  std::vector<float> values;
  const void* data() const { return bytes.data(); }
  void* data() { return bytes.data(); }
};
Buffer random_buffer(DType dtype, int64_t count, std::mt19937& rng);
float stored_value(DType dtype, const void* base, int64_t index);
void store_value(DType dtype, void* base, int64_t index, float value);

// Element index of (r, c) for a layout and leading dimension.
inline int64_t index_of(Layout layout, int64_t r, int64_t c, int64_t ld) {
  return layout == Layout::col_major ? r + c * ld : r * ld + c;
}

// C(m,n) += sum_i sum_k A_i(m,k) B_i(k,n) in double; C stored f32 with c_layout/ldc.
void reference_brgemm(const BrgemmConfig& cfg, const std::vector<float>& a,
                      const std::vector<float>& b, std::vector<float>& c, int64_t lda,
                      int64_t ldb, int64_t ldc, int64_t stride_a, int64_t stride_b);

// Max |x - y| over two vectors, and a tolerance for sums of `terms` products of values
// in [-1, 1] in f32.
double max_abs_diff(const std::vector<float>& x, const std::vector<float>& y);
double f32_tolerance(int64_t terms);

std::string shape_name(int64_t m, int64_t n, int64_t k, int64_t batch);

}  // namespace polyfuse::cpu::testing
