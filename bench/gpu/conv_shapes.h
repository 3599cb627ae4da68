// Convolution layers of the benchmarks (issue 24 item 4): NHWC input, KRSC filter (KC for a
// 1x1 layer), square filters, the same stride and zero padding on both image axes, grouped or
// not (cuDNN's group count: C and K are the layer's channels, C / G and K / G each group's); their
// .tc programs. Shared by polyfuse-bench (GPU, against cuDNN) and polyfuse-bench-cpu
// (against oneDNN).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bench/gpu/sizes.h"

namespace polyfuse::bench {

// One convolution layer: an N x H x W x C input, K filters of R x R x C / G, stride, zero
// padding `pad` on every side; the output is N x P x Q x K. With G `groups`, group g's K / G
// output channels read only its C / G input channels (channels g * C / G..).
struct ConvShape {
  std::string name;  // "res2 3x3"
  std::int64_t n = 1, h = 1, w = 1, c = 1, k = 1, r = 1, stride = 1, pad = 0, groups = 1;

  std::int64_t p() const { return (h + 2 * pad - r) / stride + 1; }
  std::int64_t q() const { return (w + 2 * pad - r) / stride + 1; }
  // 2 * N * P * Q * K * R * S * C / G (S = R): the multiply-adds counted as two flops.
  double flops() const;
  // The implicit GEMM: M = N * P * Q, N = K / G, K = R * S * C / G, batch G (one GEMM per group).
  ProblemSize gemm() const;
  // Stride 1 and the output as large as the input (a "same" convolution).
  bool same() const { return stride == 1 && p() == h && q() == w; }
};

// "N32 56x56 C64 K64 3x3 s1 p1" (" g32" after it when grouped).
std::string describe(const ConvShape& shape);

// ResNet-50's convolutions at batch `batch`, NHWC: each stage's 3x3 layer (stage 3's
// stride-2 one too) and its 1x1 layers (10 layers).
std::vector<ConvShape> resnet50_conv_layers(std::int64_t batch);

// ResNeXt-50 (32x4d)'s grouped 3x3 convolutions at batch `batch`, NHWC: each stage's (32
// groups of 4, 8, 16 and 32 channels), stage 3's stride-2 one too (5 layers).
std::vector<ConvShape> resnext50_grouped_layers(std::int64_t batch);

// What follows the convolution Y = conv(I, F) in a program:
//   none                O = Y
//   bias_relu           O = relu(Y + bias(k))
//   bias_residual_relu  O = relu(Y + bias(k) + I(n, h, w, k)): a ResNet block's tail, for
//                       "same" layers with K = C (the input is the residual)
enum class ConvEpilogue { none, bias_relu, bias_residual_relu };

// The .tc program `def <def_name>(...)` of `shape` with element type `type` ("f32", "f16",
// "bf16"): O(n, h, w, k) +=! I(n, stride*h + r - pad, stride*w + s - pad, c) * F(k, r, s, c),
// zero read outside I where padded, then `epilogue` (the sum in Y when there is one). Grouped:
// O(n, h, w, g, k) +=! I(n, .., .., g, c) * F(g, k, r, s, c), bias(g, k), C and K a group's.
// Sizes N, H, W, G, C, K, R, P, Q stay unbound (conv_size_bindings gives their values).
// Throws std::invalid_argument for bias_residual_relu on a layer that cannot take it.
std::string conv_tc_source(const ConvShape& shape, ConvEpilogue epilogue, const std::string& type,
                           const std::string& def_name);

// The values of the sizes `source` (a conv_tc_source text) names, in N, H, W, C, K, R, P, Q, G order.
std::vector<std::pair<std::string, std::int64_t>> conv_size_bindings(const ConvShape& shape,
                                                                     const std::string& source);

}  // namespace polyfuse::bench
