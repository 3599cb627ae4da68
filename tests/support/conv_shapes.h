// The convolution examples (examples/conv2d*.tc) and the small, odd shapes the tests run
// them at: H, W, C, K multiples of nothing, C = 3 (a first layer), stride 2 with padding
// (P and Q are then the strided output sizes), kept small so emulator runs stay fast.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "frontend/size_bindings.h"

namespace polyfuse::testing {

// One example at one shape.
struct ConvCase {
  std::string example;  // examples/<example>.tc
  SizeBindings sizes;
};

// Every convolution example at two shapes each.
inline std::vector<ConvCase> conv_cases() {
  // conv2d_strided: P = (H + 2 - R) / 2 + 1, Q = (W + 2 - S) / 2 + 1 (stride 2, padding 1).
  const std::vector<SizeBindings> shapes = {
      {{"N", 2}, {"H", 9}, {"W", 7}, {"C", 3}, {"K", 5}, {"R", 3}, {"S", 3}, {"G", 2}, {"P", 5}, {"Q", 4}},
      {{"N", 1}, {"H", 5}, {"W", 11}, {"C", 6}, {"K", 7}, {"R", 3}, {"S", 3}, {"G", 3}, {"P", 3}, {"Q", 6}},
  };
  // Each example with the sizes its signature names.
  const std::vector<std::pair<std::string, std::string>> examples = {
      {"conv2d", "NHWCKRS"},       {"conv2d_strided", "NHWCKRSPQ"}, {"conv2d_1x1", "NHWCK"},
      {"conv2d_grouped", "NHWGCKRS"}, {"conv2d_bias_relu", "NHWCKRS"},  {"conv2d_residual", "NHWCRS"},
      {"conv2d_grouped_bias_relu", "NHWGCKRS"},
  };
  std::vector<ConvCase> cases;
  for (const auto& [example, names] : examples)
    for (const SizeBindings& shape : shapes) {
      SizeBindings used;
      for (char name : names) used[std::string(1, name)] = shape.at(std::string(1, name));
      cases.push_back({example, used});
    }
  // A 1x2 filter on a 2x5 image, one channel: ranges of one value.
  cases.push_back({"conv2d", {{"N", 1}, {"H", 2}, {"W", 5}, {"C", 1}, {"K", 1}, {"R", 2}, {"S", 2}}});
  return cases;
}

// "conv2d_N2_H9_..." for test names.
inline std::string conv_case_name(const ConvCase& c) {
  std::string name = c.example;
  for (const auto& [size, value] : c.sizes) name += "_" + size + std::to_string(value);
  return name;
}

// For gtest's messages and CTest's names: the case name, not the object's bytes.
inline void PrintTo(const ConvCase& c, std::ostream* out) { *out << conv_case_name(c); }

}  // namespace polyfuse::testing
