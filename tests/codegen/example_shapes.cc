#include "example_shapes.h"

#include <fmt/format.h>

#include <regex>

#include "gemm_programs.h"

namespace polyfuse::testing {

std::vector<ExampleShape> example_shapes(bool one_each) {
  std::vector<ExampleShape> all;
  std::vector<SizeBindings> mnk = {{{"M", 128}, {"N", 256}, {"K", 128}},
                                   {{"M", 67}, {"N", 136}, {"K", 72}},
                                   {{"M", 37}, {"N", 45}, {"K", 29}}};
  if (one_each) mnk = {mnk[1]};
  for (const char* example : {"gemm", "gemm_bias_relu", "relu_gemm", "dequant_gemm", "add_gemms", "swiglu", "gemm_f32",
                              "gemm_fp8", "gemm_softmax", "layernorm", "rmsnorm"})
    for (const SizeBindings& s : mnk) {
      // FP8 operands come by TMA only: K-major rows of K bytes, a multiple of 16
      if (std::string(example) == "gemm_fp8" && s.at("K") % 16 != 0) continue;
      all.push_back({example, s, ""});
    }
  for (const SizeBindings& s : mnk) {
    SizeBindings batched = s;
    batched["B"] = 3;
    all.push_back({"batched_gemm", batched, ""});
    batched["H"] = 2;
    all.push_back({"multihead_batched_gemm", batched, ""});
    all.push_back({"mlp", {{"M", s.at("M")}, {"K", s.at("K")}, {"H", 64}, {"N", s.at("N")}}, ""});
  }
  all.push_back({"attention", {{"B", 2}, {"S", 64}, {"T", 128}, {"D", 64}}, ""});
  if (!one_each) all.push_back({"attention", {{"B", 3}, {"S", 37}, {"T", 45}, {"D", 24}}, ""});
  all.push_back({"causal_attention", {{"B", 2}, {"S", 64}, {"T", 64}, {"D", 64}}, ""});
  if (!one_each) all.push_back({"causal_attention", {{"B", 3}, {"S", 45}, {"T", 45}, {"D", 24}}, ""});
  std::vector<SizeBindings> rows = {SizeBindings{{"M", 128}, {"N", 256}}, SizeBindings{{"M", 37}, {"N", 45}}};
  if (one_each) rows = {rows[1]};
  for (const SizeBindings& s : rows)
    for (const char* example : {"softmax", "layernorm_rows", "cross_entropy"}) all.push_back({example, s, ""});
  all.push_back({"tensordot", {{"A", 4}, {"B", 8}, {"K", 8}, {"L", 16}, {"C", 64}}, ""});
  if (!one_each) all.push_back({"tensordot", {{"A", 3}, {"B", 5}, {"K", 7}, {"L", 9}, {"C", 11}}, ""});
  // the convolutions in f16 (the TMA + wgmma implicit GEMM on sm_90a where it applies) and as written (f32)
  const SizeBindings image{{"N", 2}, {"H", 9}, {"W", 7}, {"R", 3}, {"S", 3}};
  const auto with = [](SizeBindings s, const SizeBindings& more) {
    for (const auto& [name, value] : more) s[name] = value;
    return s;
  };
  for (const char* type : {"f16", ""}) {
    all.push_back({"conv2d", with(image, {{"C", 16}, {"K", 24}}), type});
    all.push_back({"conv2d_bias_relu", with(image, {{"C", 8}, {"K", 72}}), type});
    all.push_back({"conv2d_residual", with(image, {{"C", 24}}), type});
    all.push_back({"conv2d_strided", with(image, {{"C", 8}, {"K", 40}, {"P", 5}, {"Q", 4}}), type});
    all.push_back({"conv2d_1x1", {{"N", 2}, {"H", 9}, {"W", 7}, {"C", 16}, {"K", 40}}, type});
    all.push_back({"conv2d_grouped", with(image, {{"G", 2}, {"C", 8}, {"K", 8}}), type});
    all.push_back({"conv2d_grouped_bias_relu", with(image, {{"G", 3}, {"C", 8}, {"K", 8}}), type});
    all.push_back({"conv2d", with(image, {{"C", 3}, {"K", 5}}), type});  // a first layer: C = 3
  }
  return all;
}

std::string example_label(const ExampleShape& e) {
  std::string text = e.example + (e.type.empty() ? "" : "_" + e.type);
  for (const auto& [name, value] : e.sizes) text += fmt::format(" {}={}", name, value);
  return text;
}

std::string example_test_name(const ExampleShape& e) {
  std::string name = e.example + (e.type.empty() ? "" : "_" + e.type);
  for (const auto& [size, value] : e.sizes) name += fmt::format("_{}{}", size, value);
  return name;
}

Program example_program(const ExampleShape& e) {
  std::string source = example_source(e.example);
  if (!e.type.empty()) source = std::regex_replace(source, std::regex(R"(\bf32\()"), e.type + "(");
  return compile_program(source, e.sizes);
}

}  // namespace polyfuse::testing
