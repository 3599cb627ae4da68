#include "reference.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace polyfuse::cpu::testing {

std::vector<Isa> all_isas() {
#if defined(__x86_64__)
  return {Isa::generic, Isa::avx2, Isa::avx512};
#elif defined(__aarch64__)
  return {Isa::generic, Isa::neon};
#else
  return {Isa::generic};
#endif
}

bool emulated() { return std::getenv("POLYFUSE_TEST_EMULATED") != nullptr; }

float stored_value(DType dtype, const void* base, int64_t index) {
  switch (dtype) {
    case DType::f32: return static_cast<const float*>(base)[index];
    case DType::f16: return f16_to_f32(static_cast<const uint16_t*>(base)[index]);
    case DType::bf16: return bf16_to_f32(static_cast<const uint16_t*>(base)[index]);
    case DType::e4m3: return e4m3_to_f32(static_cast<const uint8_t*>(base)[index]);
    case DType::e5m2: return e5m2_to_f32(static_cast<const uint8_t*>(base)[index]);
  }
  return 0.f;
}

void store_value(DType dtype, void* base, int64_t index, float value) {
  switch (dtype) {
    case DType::f32: static_cast<float*>(base)[index] = value; break;
    case DType::f16: static_cast<uint16_t*>(base)[index] = f32_to_f16(value); break;
    case DType::bf16: static_cast<uint16_t*>(base)[index] = f32_to_bf16(value); break;
    case DType::e4m3: static_cast<uint8_t*>(base)[index] = f32_to_e4m3(value); break;
    case DType::e5m2: static_cast<uint8_t*>(base)[index] = f32_to_e5m2(value); break;
  }
}

Buffer random_buffer(DType dtype, int64_t count, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  Buffer buffer;
  buffer.dtype = dtype;
  buffer.bytes.resize(static_cast<size_t>(count * dtype_size(dtype)));
  buffer.values.resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    store_value(dtype, buffer.bytes.data(), i, dist(rng));
    buffer.values[i] = stored_value(dtype, buffer.bytes.data(), i);
  }
  return buffer;
}

void reference_brgemm(const BrgemmConfig& cfg, const std::vector<float>& a,
                      const std::vector<float>& b, std::vector<float>& c, int64_t lda,
                      int64_t ldb, int64_t ldc, int64_t stride_a, int64_t stride_b) {
  for (int64_t m = 0; m < cfg.m; ++m)
    for (int64_t n = 0; n < cfg.n; ++n) {
      double sum = 0;
      for (int64_t i = 0; i < cfg.batch; ++i)
        for (int64_t k = 0; k < cfg.k; ++k)
          sum += double(a[i * stride_a + index_of(cfg.a_layout, m, k, lda)]) *
                 double(b[i * stride_b + index_of(cfg.b_layout, k, n, ldb)]);
      float& out = c[index_of(cfg.c_layout, m, n, ldc)];
      out = static_cast<float>((cfg.accumulate ? double(out) : 0.0) + sum);
    }
}

double max_abs_diff(const std::vector<float>& x, const std::vector<float>& y) {
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = std::fabs(double(x[i]) - double(y[i]));
    if (!(d <= worst)) worst = d;  // NaN propagates as a failure
  }
  return worst;
}

double f32_tolerance(int64_t terms) { return 1e-5 * (8.0 + double(terms)); }

std::string shape_name(int64_t m, int64_t n, int64_t k, int64_t batch) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + "x" +
         std::to_string(batch);
}

}  // namespace polyfuse::cpu::testing
