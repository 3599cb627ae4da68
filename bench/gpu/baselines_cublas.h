// The cuBLAS matmul of the baselines: row-major D (M x N) = A (M x K) * B (K x N), f16 or
// bf16 in and out, f32 accumulation (CUBLAS_COMPUTE_32F, tensor ops: CUBLAS_DEFAULT_MATH,
// CUBLAS_GEMM_DEFAULT). cuBLAS is column-major, so it computes D^T = B^T * A^T: a
// row-major matrix is its transpose in column-major order, and no data is moved.
#pragma once

#include <cublas_v2.h>

#include <string>

#include "bench/gpu/idioms.h"
#include "bench/gpu/sizes.h"

namespace polyfuse::bench {

// The cudaDataType of `dtype` (CUDA_R_16F, CUDA_R_16BF).
cudaDataType_t cuda_data_type(DType dtype);

// Throws BenchError("<call>: <status name>") unless `status` is CUBLAS_STATUS_SUCCESS;
// CUBLAS_STATUS_NOT_SUPPORTED throws Unsupported.
void check_cublas(cublasStatus_t status, const char* call);

// cuBLAS's version, "13.0.2".
std::string cublas_version();

// A cuBLAS handle.
class Cublas {
 public:
  // Creates the handle with tensor-op math allowed (throws BenchError).
  Cublas();
  ~Cublas();
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;

  // Queues D = A * B + beta * D on `stream`: cublasGemmEx, or when `batched`,
  // cublasGemmStridedBatchedEx over size.batch matrices stored one after the other.
  void gemm(cudaStream_t stream, DType dtype, const ProblemSize& size, bool batched, const void* a, const void* b,
            void* d, float beta = 0.0f);

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace polyfuse::bench
