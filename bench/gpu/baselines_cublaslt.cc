#include "bench/gpu/baselines_cublaslt.h"

#include <cstdint>

#include "bench/gpu/baselines_cublas.h"

namespace polyfuse::bench {

void check_cublaslt(cublasStatus_t status, const char* call) { check_cublas(status, call); }

CublasLt::CublasLt() : workspace_(workspace_bytes) { check_cublaslt(cublasLtCreate(&handle_), "cublasLtCreate"); }

CublasLt::~CublasLt() {
  if (handle_) cublasLtDestroy(handle_);
}

namespace {

// A column-major rows x columns layout with leading dimension `rows`, strided-batched.
cublasLtMatrixLayout_t make_layout(cudaDataType_t type, std::int64_t rows, std::int64_t columns, bool batched,
                                   std::int64_t batch) {
  cublasLtMatrixLayout_t layout = nullptr;
  check_cublaslt(cublasLtMatrixLayoutCreate(&layout, type, static_cast<std::uint64_t>(rows),
                                            static_cast<std::uint64_t>(columns), rows),
                 "cublasLtMatrixLayoutCreate");
  if (batched) {
    const std::int32_t count = static_cast<std::int32_t>(batch);
    const std::int64_t stride = rows * columns;
    check_cublaslt(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
                   "cublasLtMatrixLayoutSetAttribute (batch count)");
    check_cublaslt(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                                    sizeof stride),
                   "cublasLtMatrixLayoutSetAttribute (batch stride)");
  }
  return layout;
}

cublasLtEpilogue_t lt_epilogue(LtEpilogue epilogue) {
  switch (epilogue) {
    case LtEpilogue::none: return CUBLASLT_EPILOGUE_DEFAULT;
    case LtEpilogue::bias: return CUBLASLT_EPILOGUE_BIAS;
    case LtEpilogue::relu_bias: return CUBLASLT_EPILOGUE_RELU_BIAS;
    case LtEpilogue::gelu_bias: return CUBLASLT_EPILOGUE_GELU_BIAS;
  }
  return CUBLASLT_EPILOGUE_DEFAULT;
}

}  // namespace

LtMatmul::LtMatmul(const CublasLt& lt, DType dtype, const ProblemSize& size, bool batched, LtEpilogue epilogue,
                   const void* bias, float beta)
    : lt_(lt), beta_(beta) {
  try {
    plan(dtype, size, batched, epilogue, bias);
  } catch (...) {
    release();
    throw;
  }
}

void LtMatmul::plan(DType dtype, const ProblemSize& size, bool batched, LtEpilogue epilogue, const void* bias) {
  const cudaDataType_t type = cuda_data_type(dtype);
  check_cublaslt(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
  const cublasLtEpilogue_t lt_epi = lt_epilogue(epilogue);
  check_cublaslt(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_EPILOGUE, &lt_epi, sizeof lt_epi),
                 "cublasLtMatmulDescSetAttribute (epilogue)");
  if (epilogue != LtEpilogue::none) {
    const std::int32_t bias_type = type;
    const std::int64_t bias_stride = 0;
    check_cublaslt(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias),
                   "cublasLtMatmulDescSetAttribute (bias pointer)");
    check_cublaslt(
        cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type),
        "cublasLtMatmulDescSetAttribute (bias type)");
    if (batched)
      check_cublaslt(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &bias_stride,
                                                    sizeof bias_stride),
                     "cublasLtMatmulDescSetAttribute (bias batch stride)");
  }
  // Column-major view: D^T (N x M) = B^T (N x K) * A^T (K x M).
  a_layout_ = make_layout(type, size.n, size.k, batched, size.batch);  // cuBLASLt's A: our B
  b_layout_ = make_layout(type, size.k, size.m, batched, size.batch);  // cuBLASLt's B: our A
  d_layout_ = make_layout(type, size.n, size.m, batched, size.batch);

  cublasLtMatmulPreference_t preference = nullptr;
  check_cublaslt(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
  const std::uint64_t workspace = CublasLt::workspace_bytes;
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  cublasStatus_t status =
      cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                           sizeof workspace);
  if (status == CUBLAS_STATUS_SUCCESS)
    status = cublasLtMatmulAlgoGetHeuristic(lt_.handle(), desc_, a_layout_, b_layout_, d_layout_, d_layout_,
                                            preference, 1, &result, &found);
  cublasLtMatmulPreferenceDestroy(preference);
  check_cublaslt(status, "cublasLtMatmulAlgoGetHeuristic");
  if (found == 0) throw Unsupported("cublasLtMatmulAlgoGetHeuristic: no algorithm for this problem");
  algo_ = result.algo;
}

LtMatmul::~LtMatmul() { release(); }

void LtMatmul::release() {
  if (d_layout_) cublasLtMatrixLayoutDestroy(d_layout_);
  if (b_layout_) cublasLtMatrixLayoutDestroy(b_layout_);
  if (a_layout_) cublasLtMatrixLayoutDestroy(a_layout_);
  if (desc_) cublasLtMatmulDescDestroy(desc_);
  d_layout_ = b_layout_ = a_layout_ = nullptr;
  desc_ = nullptr;
}

void LtMatmul::run(cudaStream_t stream, const void* a, const void* b, void* d) const {
  const float alpha = 1.0f;
  check_cublaslt(cublasLtMatmul(lt_.handle(), desc_, &alpha, b, a_layout_, a, b_layout_, &beta_, d, d_layout_, d,
                                d_layout_, &algo_, lt_.workspace(), CublasLt::workspace_bytes, stream),
                 "cublasLtMatmul");
}

}  // namespace polyfuse::bench
