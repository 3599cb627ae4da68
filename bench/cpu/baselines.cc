#include "baselines.h"

#include <cblas.h>
#include <chrono>
#include <thread>
#include <libxsmm.h>

namespace polyfuse::bench {

void openblas_sgemm(int threads, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                    const float* b, int64_t ldb, float* c, int64_t ldc, float beta) {
  openblas_set_num_threads(threads);
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(m), int(n), int(k), 1.f, a, int(lda),
              b, int(ldb), beta, c, int(ldc));
}

void openblas_park_threads() {
  // OpenBLAS workers spin for a while after a threaded call and would compete with the
  // next measurement's OpenMP threads on the same cores: let them go to sleep.
  openblas_set_num_threads(1);
  // They spin for 2^28 TSC ticks (OpenBLAS's THREAD_TIMEOUT default), about 0.1 s here.
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
}

std::function<void()> openblas_settle(int threads) {
  if (threads == 1) return {};
  return openblas_park_threads;
}

XsmmBrgemm::XsmmBrgemm(int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
                       int64_t stride_a, int64_t stride_b) {
  static const bool initialised = [] { libxsmm_init(); return true; }();
  (void)initialised;
  const libxsmm_blasint la = lda, lb = ldb, lc = ldc;
  const float alpha = 1.f, beta = 1.f;
  const int flags = LIBXSMM_GEMM_FLAG_NONE;
  // libxsmm 1.17 takes the batch strides of the _strd variant in bytes.
  kernel_ = reinterpret_cast<void*>(libxsmm_smmdispatch_reducebatch_strd(
      m, n, k, stride_a * sizeof(float), stride_b * sizeof(float), &la, &lb, &lc, &alpha, &beta,
      &flags, nullptr));
}

void XsmmBrgemm::operator()(const float* a, const float* b, float* c, int64_t batch) const {
  const unsigned long long count = static_cast<unsigned long long>(batch);
  reinterpret_cast<libxsmm_smmfunction_reducebatch_strd>(kernel_)(a, b, c, &count);
}

}  // namespace polyfuse::bench
