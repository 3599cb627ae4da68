#include "bench/gpu/host_reference.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "runtime/reference/element_rounding.h"
#include "runtime/reference/tensor_data.h"

namespace polyfuse::bench {

ElementType element_type(DType dtype) { return dtype == DType::f16 ? ElementType::f16 : ElementType::bf16; }

HostProblem make_host_problem(const Idiom& idiom, DType dtype, const ProblemSize& size, std::uint64_t seed) {
  HostProblem problem;
  problem.tensors = tensors(idiom, size);
  const ElementType type = element_type(dtype);
  for (size_t i = 0; i < problem.tensors.size(); ++i) {
    const TensorSpec& spec = problem.tensors[i];
    if (spec.output) continue;
    std::vector<float> values = reference::random_values(spec.elements(), type, seed * 1000003 + i);
    std::vector<std::uint16_t> bits(values.size());
    for (size_t j = 0; j < values.size(); ++j) bits[j] = reference::to_bits(type, values[j]);
    problem.values[spec.name] = std::move(values);
    problem.bits[spec.name] = std::move(bits);
  }
  return problem;
}

std::vector<std::int64_t> sample_indices(std::int64_t elements, int samples, std::uint64_t seed) {
  std::vector<std::int64_t> indices;
  if (elements <= samples) {
    for (std::int64_t i = 0; i < elements; ++i) indices.push_back(i);
    return indices;
  }
  std::set<std::int64_t> chosen = {0, elements - 1};
  std::mt19937_64 engine(seed);
  while (static_cast<int>(chosen.size()) < samples)
    chosen.insert(static_cast<std::int64_t>(engine() % static_cast<std::uint64_t>(elements)));
  return {chosen.begin(), chosen.end()};
}

float gelu(float x) { return 0.5f * x * (1.0f + std::erf(x / std::sqrt(2.0f))); }

float reference_element(const Idiom& idiom, DType dtype, const ProblemSize& size, const HostProblem& problem,
                        std::int64_t flat_index) {
  const std::int64_t n = flat_index % size.n;
  const std::int64_t m = (flat_index / size.n) % size.m;
  const std::int64_t b = idiom.batched ? flat_index / (size.n * size.m) : 0;
  const std::vector<float>& a = problem.values.at("A");
  const std::vector<float>& bm = problem.values.at("B");
  const std::int64_t a_base = b * size.m * size.k + m * size.k;
  const std::int64_t b_base = b * size.k * size.n + n;
  float c = 0;
  for (std::int64_t k = 0; k < size.k; ++k) {
    float x = a[static_cast<size_t>(a_base + k)];
    if (idiom.relu_prologue) x = x > 0 ? x : 0;
    c += x * bm[static_cast<size_t>(b_base + k * size.n)];
  }
  if (idiom.second_matmul) {
    const std::vector<float>& e = problem.values.at("E");
    const std::vector<float>& f = problem.values.at("F");
    float c2 = 0;
    for (std::int64_t k = 0; k < size.k; ++k)
      c2 += e[static_cast<size_t>(m * size.k + k)] * f[static_cast<size_t>(k * size.n + n)];
    c = c + c2;
  }
  if (idiom.gated) {
    const std::vector<float>& f = problem.values.at("F");
    float u = 0;
    for (std::int64_t k = 0; k < size.k; ++k)
      u += a[static_cast<size_t>(a_base + k)] * f[static_cast<size_t>(k * size.n + n)];
    c = c / (1.0f + std::exp(-c)) * u;
  }
  if (idiom.bias) c = c + problem.values.at("bias")[static_cast<size_t>(n)];
  switch (idiom.activation) {
    case Activation::none: break;
    case Activation::relu: c = c > 0 ? c : 0; break;
    case Activation::tanh: c = std::tanh(c); break;
    case Activation::gelu: c = gelu(c); break;
  }
  return reference::round_to(element_type(dtype), c);
}

}  // namespace polyfuse::bench
