#include "bench/gpu/conv_reference.h"

#include <fmt/format.h>

#include <algorithm>

#include "runtime/reference/element_rounding.h"

namespace polyfuse::bench {

HostProblem make_conv_problem(const ConvIdiom& idiom, const ConvShape& shape, DType dtype, std::uint64_t seed) {
  return make_host_tensors(conv_tensors(idiom, shape), dtype, seed);
}

float conv_reference_element(const ConvIdiom& idiom, const ConvShape& shape, DType dtype, const HostProblem& problem,
                             std::int64_t flat_index) {
  const std::int64_t k = flat_index % shape.k;
  const std::int64_t q = flat_index / shape.k % shape.q();
  const std::int64_t p = flat_index / (shape.k * shape.q()) % shape.p();
  const std::int64_t n = flat_index / (shape.k * shape.q() * shape.p());
  const std::vector<float>& input = problem.values.at("I");
  const std::vector<float>& filter = problem.values.at("F");
  // a group's channels: output channel k reads input channels group * channels.. only
  const std::int64_t channels = shape.c / shape.groups, group = k / (shape.k / shape.groups);
  auto input_at = [&](std::int64_t h, std::int64_t w, std::int64_t c) {
    return input[static_cast<size_t>(((n * shape.h + h) * shape.w + w) * shape.c + c)];
  };
  float sum = 0;
  for (std::int64_t r = 0; r < shape.r; ++r) {
    const std::int64_t h = p * shape.stride + r - shape.pad;
    for (std::int64_t s = 0; s < shape.r; ++s) {
      const std::int64_t w = q * shape.stride + s - shape.pad;
      if (h < 0 || h >= shape.h || w < 0 || w >= shape.w) continue;  // zero padding
      for (std::int64_t c = 0; c < channels; ++c)
        sum += input_at(h, w, group * channels + c) *
               filter[static_cast<size_t>(((k * shape.r + r) * shape.r + s) * channels + c)];
    }
  }
  if (idiom.epilogue != ConvEpilogue::none) {
    sum += problem.values.at("bias")[static_cast<size_t>(k)];
    if (idiom.epilogue == ConvEpilogue::bias_residual_relu) sum += input_at(p, q, k);  // same layer, K = C
    sum = std::max(sum, 0.0f);
  }
  return reference::round_to(element_type(dtype), sum);
}

std::string conv_output_position(const ConvShape& shape, std::int64_t index) {
  return fmt::format("O[{}, {}, {}, {}]", index / (shape.k * shape.q() * shape.p()),
                     index / (shape.k * shape.q()) % shape.p(), index / shape.k % shape.q(), index % shape.k);
}

}  // namespace polyfuse::bench
