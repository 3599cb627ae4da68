// The cuDNN pointwise operations of the paper's baseline, on row-major matrices seen as
// NCHW tensors (rows, columns, 1, 1): bias add (cudnnAddTensor with a (1, columns, 1, 1)
// bias), activation (cudnnActivationForward: relu, tanh, and swish for SwiGLU's silu), add
// and multiply (cudnnOpTensor, f32 compute), and softmax over each row (cudnnSoftmaxForward,
// CUDNN_SOFTMAX_ACCURATE: the max subtracted; CUDNN_SOFTMAX_MODE_INSTANCE over C, H, W). These are cuDNN's legacy ("v7") API, still in cuDNN 9 (libcudnn_ops) though
// marked deprecated; the graph API would need a fused graph, which is not the paper's
// unfused baseline. Built only when cuDNN is found (POLYFUSE_BENCH_HAVE_CUDNN).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "bench/gpu/idioms.h"

namespace polyfuse::bench {

// cuDNN's version, "9.19.0" ("not built" without cuDNN).
std::string cudnn_version();

// A cuDNN handle and the descriptors the operations need.
class Cudnn {
 public:
  // Creates the handle and descriptors (throws BenchError; Unsupported without cuDNN).
  Cudnn();
  ~Cudnn();
  Cudnn(const Cudnn&) = delete;
  Cudnn& operator=(const Cudnn&) = delete;

  // d(r, c) += bias(c) for a rows x columns matrix d.
  void add_bias(cudaStream_t stream, DType dtype, std::int64_t rows, std::int64_t columns, const void* bias, void* d);
  // out = activation(in), elementwise over rows x columns (in == out allowed).
  void activation(cudaStream_t stream, DType dtype, Activation activation, std::int64_t rows, std::int64_t columns,
                  const void* in, void* out);
  // out = x + y, elementwise over rows x columns.
  void add(cudaStream_t stream, DType dtype, std::int64_t rows, std::int64_t columns, const void* x, const void* y,
           void* out);
  // out = silu(in) = in * sigmoid(in) (CUDNN_ACTIVATION_SWISH, beta 1), in == out allowed.
  void silu(cudaStream_t stream, DType dtype, std::int64_t rows, std::int64_t columns, const void* in, void* out);
  // out = softmax over each row of a rows x columns matrix (in == out allowed).
  void softmax(cudaStream_t stream, DType dtype, std::int64_t rows, std::int64_t columns, const void* in, void* out);
  // out = x * y, elementwise over rows x columns.
  void multiply(cudaStream_t stream, DType dtype, std::int64_t rows, std::int64_t columns, const void* x,
                const void* y, void* out);

 private:
  struct Impl;
  Impl* impl_ = nullptr;
};

}  // namespace polyfuse::bench
