// The baselines polyfuse-bench-cpu compares with: OpenBLAS sgemm (cblas) and libxsmm
// 1.17 JIT kernels (its dispatch API: stride-based batch-reduce GEMM).
#pragma once

#include <cstdint>
#include <functional>

namespace polyfuse::bench {

// C = alpha A B + beta C, column-major, OpenBLAS with `threads` threads.
void openblas_sgemm(int threads, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                    const float* b, int64_t ldb, float* c, int64_t ldc, float beta);

// Lets OpenBLAS's worker threads stop spinning (call after a threaded sgemm).
void openblas_park_threads();

// What to run after a timed OpenBLAS sample on `threads` threads (measure.h: Timed's
// settle): openblas_park_threads, or nothing for one thread.
std::function<void()> openblas_settle(int threads);

// libxsmm's C += sum_{i < batch} A_i B_i (column-major, batch strides in elements).
class XsmmBrgemm {
 public:
  XsmmBrgemm(int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
             int64_t stride_a, int64_t stride_b);
  bool ok() const { return kernel_ != nullptr; }
  void operator()(const float* a, const float* b, float* c, int64_t batch) const;

 private:
  void* kernel_ = nullptr;
};

}  // namespace polyfuse::bench
