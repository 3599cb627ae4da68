// cuDNN's convolutions, the baselines of the convolution idioms (conv_idioms.h): the
// input I (N, H, W, C) and the output O (N, P, Q, K) NHWC, the filter KRSC (cuDNN's NHWC
// filter format), cross-correlation (polyfuse's definition: no filter flip), f32 compute,
// tensor-op math allowed; a grouped layer through cudnnSetConvolutionGroupCount (the filter
// K x C / G):
//   forward        cudnnConvolutionForward with the fastest algorithm that
//                  cudnnFindConvolutionForwardAlgorithmEx measures on the problem's buffers
//                  (its workspace allocated);
//   forward_fused  cudnnConvolutionBiasActivationForward: O = relu(conv(I, F) + alpha2 * z +
//                  bias), z the residual (alpha2 = 1) or O itself (alpha2 = 0), with the fastest
//                  algorithm of the search that the fused call accepts.
// cuDNN's legacy ("v7") convolution API, still in cuDNN 9 (libcudnn_cnn) though marked
// deprecated. The descriptors need no device (tests check them without one); the search
// and the calls do. Built only when cuDNN is found (POLYFUSE_BENCH_HAVE_CUDNN).
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <memory>
#include <string>

#include "bench/gpu/conv_shapes.h"
#include "bench/gpu/idioms.h"

namespace polyfuse::bench {

// What cuDNN's descriptors of a convolution say, read back from cuDNN.
struct ConvDescriptorFacts {
  std::array<int, 4> output{};          // cudnnGetConvolution2dForwardOutputDim: n, k, p, q
  std::array<int, 4> output_strides{};  // O's strides (n, c, h, w) as set: NHWC
  std::array<int, 4> input_strides{};   // I's strides (n, c, h, w)
  std::array<int, 6> convolution{};     // pad h, pad w, stride h, stride w, dilation h, dilation w
  bool cross_correlation = false;       // CUDNN_CROSS_CORRELATION (not CUDNN_CONVOLUTION)
  bool f32_compute = false;             // the descriptor's compute type is CUDNN_DATA_FLOAT
  bool nhwc_filter = false;             // the filter's format is CUDNN_TENSOR_NHWC (KRSC)
  std::array<int, 4> filter{};          // its k, c, r, s (c: a group's channels)
  int groups = 0;                       // cudnnGetConvolutionGroupCount
};

class CudnnConv {
 public:
  // The descriptors of `shape` in `dtype` (no device needed). Throws Unsupported when
  // cuDNN rejects them, or when built without cuDNN.
  CudnnConv(const ConvShape& shape, DType dtype);
  ~CudnnConv();
  CudnnConv(const CudnnConv&) = delete;
  CudnnConv& operator=(const CudnnConv&) = delete;

  // The descriptors, as cuDNN reports them.
  ConvDescriptorFacts facts() const;

  // Creates the handle, measures every algorithm on `input`, `filter` (writing `output`)
  // and keeps the fastest that succeeded; allocates the workspace. Needs a device.
  void find_algorithm(const void* input, const void* filter, void* output);
  // "IMPLICIT_PRECOMP_GEMM, tensor ops, 0 B workspace (of 6 algorithms measured)"; empty
  // before find_algorithm.
  std::string algorithm() const;

  // output = conv(input, filter) on `stream` with the fastest algorithm.
  void forward(cudaStream_t stream, const void* input, const void* filter, void* output);
  // output = relu(conv(input, filter) + residual + bias): `residual` (N, P, Q, K) or null.
  // The first call picks the algorithm (the search's order; throws Unsupported if none
  // is accepted).
  void forward_fused(cudaStream_t stream, const void* input, const void* filter, const void* bias,
                     const void* residual, void* output);
  // The algorithm the fused call uses ("" before its first call).
  std::string fused_algorithm() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace polyfuse::bench
