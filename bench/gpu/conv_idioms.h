// The convolution idioms of the GPU benchmark (issue 24 item 4): plain, + bias + ReLU and
// + bias + residual + ReLU, over ResNet-50's layers and two odd shapes, and grouped (plain, +
// bias + ReLU) over ResNeXt-50's grouped layers (idioms of their own, so that each idiom's
// summary line, and issue 24's goals, are over one kind of layer); their tensors and .tc
// programs (conv_shapes.h) for polyfuse.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/gpu/conv_shapes.h"
#include "bench/gpu/idioms.h"

namespace polyfuse::bench {

// One convolution idiom.
struct ConvIdiom {
  std::string name;   // "conv_bias_relu": CSV, command line
  std::string title;  // "conv + bias + ReLU": summary, plot
  ConvEpilogue epilogue = ConvEpilogue::none;
  bool grouped = false;  // runs on the grouped layers (ConvShape::groups > 1), and only there
};

// conv, conv_bias_relu, conv_bias_residual_relu, conv_grouped, conv_grouped_bias_relu, in
// report order.
const std::vector<ConvIdiom>& conv_idioms();
// The convolution idiom named `name`, else nullptr.
const ConvIdiom* find_conv_idiom(const std::string& name);

// The layers of a run at batch `batch`: ResNet-50's (resnet50_conv_layers), then the first
// layer (7x7, stride 2, padding 3, C = 3: odd channels) at the same batch, "odd 3x3" (H, W,
// C, K odd: 19x23, C 37, K 53, batch 3), then ResNeXt-50's grouped 3x3 layers
// (resnext50_grouped_layers). `quick`: res2 3x3, res4 1x1, the first layer, odd 3x3 and rx3
// 3x3 g32.
std::vector<ConvShape> conv_layers(bool quick, std::int64_t batch);

// Whether `idiom` is defined on `shape`: the grouped idioms on the grouped layers, the others on
// the others (the residual on a "same" layer with K = C).
bool conv_applies(const ConvIdiom& idiom, const ConvShape& shape);

// The tensors of `idiom` on `shape` in the .tc signature order: I (N, H, W, C), F (K, R, R,
// C / G; K, C / G for 1x1), bias (K) when there is one, then the output O (N, P, Q, K) (a
// grouped program's (.., G, C / G) and (.., G, K / G) are the same bytes).
std::vector<TensorSpec> conv_tensors(const ConvIdiom& idiom, const ConvShape& shape);

// The .tc program of `idiom` on `shape` (def named after the idiom).
std::string conv_source(const ConvIdiom& idiom, const ConvShape& shape, DType dtype);

}  // namespace polyfuse::bench
