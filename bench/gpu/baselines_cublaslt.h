// The cuBLASLt baseline: one cublasLtMatmul per matmul, with cuBLASLt's fused epilogues
// (BIAS, RELU_BIAS, GELU_BIAS) and, for Add(GEMM, GEMM), beta = 1 on the second matmul
// so the add happens in its epilogue. Row-major matrices are handled as in
// baselines_cublas.h (D^T = B^T * A^T), so the bias vector, which cuBLASLt broadcasts
// along the rows of its column-major D^T (N x M), is bias(n). The algorithm is
// cuBLASLt's first heuristic choice with a 32 MiB workspace.
#pragma once

#include <cublasLt.h>

#include <cstddef>
#include <string>

#include "bench/gpu/cuda_util.h"
#include "bench/gpu/idioms.h"
#include "bench/gpu/sizes.h"

namespace polyfuse::bench {

// Throws BenchError unless `status` is CUBLAS_STATUS_SUCCESS (NOT_SUPPORTED: Unsupported).
void check_cublaslt(cublasStatus_t status, const char* call);

// The epilogues used.
enum class LtEpilogue { none, bias, relu_bias, gelu_bias };

// A cuBLASLt handle and its workspace.
class CublasLt {
 public:
  // Workspace bytes offered to every matmul.
  static constexpr std::size_t workspace_bytes = 32u << 20;
  // Creates the handle and allocates the workspace (throws BenchError).
  CublasLt();
  ~CublasLt();
  CublasLt(const CublasLt&) = delete;
  CublasLt& operator=(const CublasLt&) = delete;

  cublasLtHandle_t handle() const { return handle_; }
  void* workspace() const { return workspace_.data(); }

 private:
  cublasLtHandle_t handle_ = nullptr;
  DeviceMemory workspace_;
};

// One planned matmul D = A * B + beta * D (epilogue on the result), batched over
// size.batch strided matrices when `batched` (the bias shared by every batch).
class LtMatmul {
 public:
  // Creates the descriptors and asks the heuristic for an algorithm; throws Unsupported
  // when it has none. `bias` must stay valid while run() is used.
  LtMatmul(const CublasLt& lt, DType dtype, const ProblemSize& size, bool batched, LtEpilogue epilogue,
           const void* bias, float beta);
  ~LtMatmul();
  LtMatmul(const LtMatmul&) = delete;
  LtMatmul& operator=(const LtMatmul&) = delete;

  // Queues the matmul on `stream`.
  void run(cudaStream_t stream, const void* a, const void* b, void* d) const;

 private:
  // The constructor's work; release() frees whatever it created.
  void plan(DType dtype, const ProblemSize& size, bool batched, LtEpilogue epilogue, const void* bias);
  void release();
  const CublasLt& lt_;  // handle and workspace
  float beta_;          // 0, or 1 to accumulate into D
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_layout_ = nullptr, b_layout_ = nullptr, d_layout_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
};

}  // namespace polyfuse::bench
