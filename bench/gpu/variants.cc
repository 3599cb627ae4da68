#include "bench/gpu/variants.h"

namespace polyfuse::bench {
namespace {

Enqueue cublas_cudnn(const Idiom& idiom, DType dtype, const ProblemSize& size, const DeviceProblem& problem,
                     Libraries& libraries) {
  const bool pointwise = idiom.relu_prologue || idiom.second_matmul || idiom.gated || idiom.bias ||
                         idiom.activation != Activation::none || idiom.row != RowOp::none;
  if (pointwise && !libraries.cudnn) throw Unsupported("not built with cuDNN");
  if (idiom.row == RowOp::layernorm)
    throw Unsupported("cuDNN's legacy API has no layer norm (the cuBLASLt variant runs one)");
  if (idiom.activation == Activation::gelu) throw Unsupported("cuDNN's activations have no GELU");
  Cublas& cublas = libraries.cublas;
  Cudnn* cudnn = libraries.cudnn.get();
  const std::int64_t rows = size.m * (idiom.batched ? size.batch : 1);  // rows of D (and of A)
  return [&idiom, &problem, &cublas, cudnn, dtype, size, rows](cudaStream_t stream) {
    const void* a = problem.pointer("A");
    void* d = problem.pointer("D");
    if (idiom.relu_prologue) {
      cudnn->activation(stream, dtype, Activation::relu, rows, size.k, a, problem.pointer("relu_A"));
      a = problem.pointer("relu_A");
    }
    if (idiom.second_matmul) {
      cublas.gemm(stream, dtype, size, false, a, problem.pointer("B"), problem.pointer("C1"));
      cublas.gemm(stream, dtype, size, false, problem.pointer("E"), problem.pointer("F"), problem.pointer("C2"));
      cudnn->add(stream, dtype, rows, size.n, problem.pointer("C1"), problem.pointer("C2"), d);
    } else if (idiom.gated) {
      cublas.gemm(stream, dtype, size, false, a, problem.pointer("B"), problem.pointer("C1"));
      cublas.gemm(stream, dtype, size, false, a, problem.pointer("F"), problem.pointer("C2"));
      cudnn->silu(stream, dtype, rows, size.n, problem.pointer("C1"), problem.pointer("C1"));
      cudnn->multiply(stream, dtype, rows, size.n, problem.pointer("C1"), problem.pointer("C2"), d);
    } else if (idiom.row == RowOp::softmax) {
      cublas.gemm(stream, dtype, size, false, a, problem.pointer("B"), problem.pointer("C1"));
      cudnn->softmax(stream, dtype, rows, size.n, problem.pointer("C1"), d);
      return;
    } else {
      cublas.gemm(stream, dtype, size, idiom.batched, a, problem.pointer("B"), d);
    }
    if (idiom.bias) cudnn->add_bias(stream, dtype, rows, size.n, problem.pointer("bias"), d);
    if (idiom.activation != Activation::none) cudnn->activation(stream, dtype, idiom.activation, rows, size.n, d, d);
  };
}

Enqueue cublaslt(const Idiom& idiom, DType dtype, const ProblemSize& size, const DeviceProblem& problem,
                 Libraries& libraries) {
  LtEpilogue epilogue = LtEpilogue::none;
  if (idiom.bias) {
    epilogue = LtEpilogue::bias;
    if (idiom.activation == Activation::relu) epilogue = LtEpilogue::relu_bias;
    if (idiom.activation == Activation::gelu) epilogue = LtEpilogue::gelu_bias;
  }
  const void* bias = idiom.bias ? problem.pointer("bias") : nullptr;
  auto first = std::make_shared<LtMatmul>(libraries.cublaslt, dtype, size, idiom.batched, epilogue, bias, 0.0f);
  std::shared_ptr<LtMatmul> second;
  if (idiom.second_matmul)
    second = std::make_shared<LtMatmul>(libraries.cublaslt, dtype, size, false, LtEpilogue::none, nullptr, 1.0f);
  if (idiom.gated)
    second = std::make_shared<LtMatmul>(libraries.cublaslt, dtype, size, false, LtEpilogue::none, nullptr, 0.0f);
  const ExtraKernels* extra = libraries.extra;
  const std::int64_t a_elements = size.m * size.k * (idiom.batched ? size.batch : 1);
  const std::int64_t d_elements = problem.output_elements();
  const std::int64_t columns = size.n, rows = d_elements / size.n;
  return [&idiom, &problem, first, second, extra, dtype, a_elements, d_elements, rows, columns](cudaStream_t stream) {
    const void* a = problem.pointer("A");
    void* d = problem.pointer("D");
    if (idiom.relu_prologue) {
      extra->pointwise(ExtraOp::relu, dtype, a, problem.pointer("relu_A"), a_elements, stream);
      a = problem.pointer("relu_A");
    }
    if (idiom.row == RowOp::softmax) {  // C = A*B, then the row kernel
      first->run(stream, a, problem.pointer("B"), problem.pointer("C1"));
      extra->softmax_rows(dtype, problem.pointer("C1"), d, rows, columns, stream);
      return;
    }
    if (idiom.row == RowOp::layernorm) {  // C = A*B + bias (BIAS epilogue), then the row kernel
      first->run(stream, a, problem.pointer("B"), problem.pointer("C1"));
      extra->layernorm_rows(dtype, problem.pointer("C1"), problem.pointer("gamma"), problem.pointer("beta"), d, rows,
                            columns, stream);
      return;
    }
    if (idiom.gated) {  // G = A*B and U = A*F, then D = silu(G) * U
      first->run(stream, a, problem.pointer("B"), problem.pointer("C1"));
      second->run(stream, a, problem.pointer("F"), problem.pointer("C2"));
      extra->silu_mul(dtype, problem.pointer("C1"), problem.pointer("C2"), d, d_elements, stream);
      return;
    }
    first->run(stream, a, problem.pointer("B"), d);
    if (second) second->run(stream, problem.pointer("E"), problem.pointer("F"), d);
    if (idiom.activation == Activation::tanh) extra->pointwise(ExtraOp::tanh, dtype, d, d, d_elements, stream);
  };
}

}  // namespace

Enqueue make_baseline(Variant variant, const Idiom& idiom, DType dtype, const ProblemSize& size,
                      const DeviceProblem& problem, Libraries& libraries) {
  if (variant == Variant::cublas_cudnn) return cublas_cudnn(idiom, dtype, size, problem, libraries);
  if (variant == Variant::cublaslt) return cublaslt(idiom, dtype, size, problem, libraries);
  throw Unsupported("not a library baseline: " + to_string(variant));
}

}  // namespace polyfuse::bench
