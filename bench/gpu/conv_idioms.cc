#include "bench/gpu/conv_idioms.h"

namespace polyfuse::bench {

const std::vector<ConvIdiom>& conv_idioms() {
  static const std::vector<ConvIdiom> idioms = {
      {"conv", "conv (NHWC, KRSC)", ConvEpilogue::none},
      {"conv_bias_relu", "conv + bias + ReLU", ConvEpilogue::bias_relu},
      {"conv_bias_residual_relu", "conv + bias + residual + ReLU", ConvEpilogue::bias_residual_relu},
      {"conv_grouped", "grouped conv (NHWC, G x KRSC)", ConvEpilogue::none, true},
      {"conv_grouped_bias_relu", "grouped conv + bias + ReLU", ConvEpilogue::bias_relu, true},
  };
  return idioms;
}

const ConvIdiom* find_conv_idiom(const std::string& name) {
  for (const ConvIdiom& idiom : conv_idioms())
    if (idiom.name == name) return &idiom;
  return nullptr;
}

std::vector<ConvShape> conv_layers(bool quick, std::int64_t batch) {
  std::vector<ConvShape> all = resnet50_conv_layers(batch);
  all.push_back({"conv1 7x7 s2", batch, 224, 224, 3, 64, 7, 2, 3});
  all.push_back({"odd 3x3", 3, 19, 23, 37, 53, 3, 1, 1});
  for (const ConvShape& shape : resnext50_grouped_layers(batch)) all.push_back(shape);
  if (!quick) return all;
  std::vector<ConvShape> some;
  for (const ConvShape& shape : all)
    if (shape.name == "res2 3x3" || shape.name == "res4 1x1" || shape.name == "conv1 7x7 s2" ||
        shape.name == "odd 3x3" || shape.name == "rx3 3x3 g32")
      some.push_back(shape);
  return some;
}

bool conv_applies(const ConvIdiom& idiom, const ConvShape& shape) {
  if (idiom.grouped != (shape.groups > 1)) return false;
  return idiom.epilogue != ConvEpilogue::bias_residual_relu || (shape.same() && shape.k == shape.c);
}

std::vector<TensorSpec> conv_tensors(const ConvIdiom& idiom, const ConvShape& shape) {
  std::vector<TensorSpec> list;
  list.push_back({"I", {shape.n, shape.h, shape.w, shape.c}, false});
  if (shape.r == 1)
    list.push_back({"F", {shape.k, shape.c / shape.groups}, false});
  else
    list.push_back({"F", {shape.k, shape.r, shape.r, shape.c / shape.groups}, false});
  if (idiom.epilogue != ConvEpilogue::none) list.push_back({"bias", {shape.k}, false});
  list.push_back({"O", {shape.n, shape.p(), shape.q(), shape.k}, true});
  return list;
}

std::string conv_source(const ConvIdiom& idiom, const ConvShape& shape, DType dtype) {
  return conv_tc_source(shape, idiom.epilogue, to_string(dtype), idiom.name);
}

}  // namespace polyfuse::bench
