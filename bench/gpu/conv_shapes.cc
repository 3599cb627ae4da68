#include "bench/gpu/conv_shapes.h"

#include <fmt/format.h>

#include <stdexcept>

namespace polyfuse::bench {

double ConvShape::flops() const {
  return 2.0 * static_cast<double>(n * p() * q()) * static_cast<double>(k) * static_cast<double>(r * r * c / groups);
}

ProblemSize ConvShape::gemm() const { return {n * p() * q(), k / groups, r * r * c / groups, groups}; }

std::string describe(const ConvShape& shape) {
  return fmt::format("N{} {}x{} C{} K{} {}x{} s{} p{}{}", shape.n, shape.h, shape.w, shape.c, shape.k, shape.r, shape.r,
                     shape.stride, shape.pad, shape.groups > 1 ? fmt::format(" g{}", shape.groups) : "");
}

std::vector<ConvShape> resnet50_conv_layers(std::int64_t batch) {
  const std::int64_t b = batch;
  return {
      {"res2 3x3", b, 56, 56, 64, 64, 3, 1, 1},     {"res3 3x3", b, 28, 28, 128, 128, 3, 1, 1},
      {"res3 3x3 s2", b, 56, 56, 128, 128, 3, 2, 1}, {"res4 3x3", b, 14, 14, 256, 256, 3, 1, 1},
      {"res5 3x3", b, 7, 7, 512, 512, 3, 1, 1},      {"res2 1x1 a", b, 56, 56, 64, 256, 1, 1, 0},
      {"res2 1x1 b", b, 56, 56, 256, 64, 1, 1, 0},   {"res3 1x1", b, 28, 28, 512, 128, 1, 1, 0},
      {"res4 1x1", b, 14, 14, 1024, 256, 1, 1, 0},   {"res5 1x1", b, 7, 7, 2048, 512, 1, 1, 0},
  };
}

std::vector<ConvShape> resnext50_grouped_layers(std::int64_t batch) {
  const std::int64_t b = batch;
  return {
      {"rx2 3x3 g32", b, 56, 56, 128, 128, 3, 1, 1, 32},     {"rx3 3x3 g32", b, 28, 28, 256, 256, 3, 1, 1, 32},
      {"rx3 3x3 g32 s2", b, 56, 56, 256, 256, 3, 2, 1, 32}, {"rx4 3x3 g32", b, 14, 14, 512, 512, 3, 1, 1, 32},
      {"rx5 3x3 g32", b, 7, 7, 1024, 1024, 3, 1, 1, 32},
  };
}

std::string conv_tc_source(const ConvShape& shape, ConvEpilogue epilogue, const std::string& type,
                           const std::string& def_name) {
  const bool residual = epilogue == ConvEpilogue::bias_residual_relu;
  if (residual && (!shape.same() || shape.k != shape.c || shape.groups > 1))
    throw std::invalid_argument(fmt::format("conv_tc_source: layer '{}' ({}): a residual needs stride 1, the output "
                                            "as large as the input, K = C and no groups",
                                            shape.name, describe(shape)));
  // The input read at stride * h + r - pad (zero outside when padded).
  const auto at = [&](const char* out, const char* tap) {
    std::string text = shape.stride == 1 ? std::string(out) : fmt::format("{}*{}", shape.stride, out);
    if (shape.r > 1) text += std::string(" + ") + tap;
    if (shape.pad > 0) text += fmt::format(" - {}", shape.pad);
    return text;
  };
  const bool one = shape.r == 1;
  // A plain 1x1 layer's output ranges are the input's (H, W); a residual's output has the
  // input's sizes and channels (K = C); the others are stated (P, Q).
  const bool plain = one && shape.stride == 1 && shape.pad == 0;
  const std::string k = residual ? "C" : "K";
  const std::string p = plain || residual ? "H" : "P";
  const std::string q = plain || residual ? "W" : "Q";
  // grouped: the group index g before each channel index, G before each channel size
  const bool grouped = shape.groups > 1;
  const std::string g = grouped ? "g, " : "", gs = grouped ? "G, " : "";
  const std::string filter = fmt::format("F({}k{})", g, one ? ", c" : ", r, s, c");
  std::string where;
  if (!plain) where = fmt::format(" where h in 0:{}, w in 0:{}{}", p, q, shape.pad > 0 ? ", I = 0 outside" : "");
  const std::string product = fmt::format("I(n, {}, {}, {}c) * {}{}", at("h", "r"), at("w", "s"), g, filter, where);
  std::string signature =
      fmt::format("{0}(N, H, W, {2}C) I, {0}({2}{1}) F", type, one ? k + ", C" : k + ", R, R, C", gs);
  if (epilogue != ConvEpilogue::none) signature += fmt::format(", {}({}{}) bias", type, gs, k);
  const std::string output = fmt::format("{}(N, {}, {}, {}{}) O", type, p, q, gs, k);
  const std::string o = fmt::format("(n, h, w, {}k)", g);
  if (epilogue == ConvEpilogue::none)
    return fmt::format("def {}({}) -> ({}) {{\n  O{} +=! {}\n}}\n", def_name, signature, output, o, product);
  return fmt::format("def {0}({1}) -> ({2}) {{\n  Y{3} +=! {4}\n  O{3} = relu(Y{3} + bias({5}k){6})\n}}\n", def_name,
                     signature, output, o, product, g, residual ? " + I(n, h, w, k)" : "");
}

std::vector<std::pair<std::string, std::int64_t>> conv_size_bindings(const ConvShape& shape,
                                                                     const std::string& source) {
  const std::vector<std::pair<std::string, std::int64_t>> sizes = {
      {"N", shape.n},           {"H", shape.h}, {"W", shape.w},     {"C", shape.c / shape.groups},
      {"K", shape.k / shape.groups}, {"R", shape.r}, {"P", shape.p()}, {"Q", shape.q()},
      {"G", shape.groups}};
  std::vector<std::pair<std::string, std::int64_t>> used;
  // A size is named in a tensor's shape: followed by ',' or ')' (the indices are lower case).
  for (const auto& size : sizes)
    if (source.find(size.first + ",") != std::string::npos || source.find(size.first + ")") != std::string::npos)
      used.push_back(size);
  return used;
}

}  // namespace polyfuse::bench
