#include "bench/gpu/baselines_cublas.h"

#include "bench/gpu/cuda_util.h"

namespace polyfuse::bench {

cudaDataType_t cuda_data_type(DType dtype) { return dtype == DType::f16 ? CUDA_R_16F : CUDA_R_16BF; }

void check_cublas(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  const std::string message = std::string(call) + ": " + cublasGetStatusName(status) + " (" +
                              cublasGetStatusString(status) + ")";
  if (status == CUBLAS_STATUS_NOT_SUPPORTED) throw Unsupported(message);
  throw BenchError(message);
}

std::string cublas_version() {
  int major = 0, minor = 0, patch = 0;
  cublasGetProperty(MAJOR_VERSION, &major);
  cublasGetProperty(MINOR_VERSION, &minor);
  cublasGetProperty(PATCH_LEVEL, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

Cublas::Cublas() {
  check_cublas(cublasCreate(&handle_), "cublasCreate");
  check_cublas(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
}

Cublas::~Cublas() {
  if (handle_) cublasDestroy(handle_);
}

void Cublas::gemm(cudaStream_t stream, DType dtype, const ProblemSize& size, bool batched, const void* a,
                  const void* b, void* d, float beta) {
  check_cublas(cublasSetStream(handle_, stream), "cublasSetStream");
  const cudaDataType_t type = cuda_data_type(dtype);
  const float alpha = 1.0f;
  // Column-major view: D^T (N x M, ld N) = B^T (N x K, ld N) * A^T (K x M, ld K).
  const int m = static_cast<int>(size.n), n = static_cast<int>(size.m), k = static_cast<int>(size.k);
  if (!batched) {
    check_cublas(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, b, type, m, a, type, k, &beta, d,
                              type, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
    return;
  }
  check_cublas(cublasGemmStridedBatchedEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, b, type, m,
                                          size.k * size.n, a, type, k, size.m * size.k, &beta, d, type, m,
                                          size.m * size.n, static_cast<int>(size.batch), CUBLAS_COMPUTE_32F,
                                          CUBLAS_GEMM_DEFAULT),
               "cublasGemmStridedBatchedEx");
}

}  // namespace polyfuse::bench
