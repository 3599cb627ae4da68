#include "bench/gpu/host_reference.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <utility>

#include "runtime/reference/element_rounding.h"
#include "runtime/reference/tensor_data.h"

namespace polyfuse::bench {

ElementType element_type(DType dtype) { return dtype == DType::f16 ? ElementType::f16 : ElementType::bf16; }

HostProblem make_host_problem(const Idiom& idiom, DType dtype, const ProblemSize& size, std::uint64_t seed) {
  return make_host_tensors(tensors(idiom, size), dtype, seed);
}

HostProblem make_host_tensors(std::vector<TensorSpec> tensors, DType dtype, std::uint64_t seed) {
  HostProblem problem;
  problem.tensors = std::move(tensors);
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

std::vector<std::int64_t> check_indices(const Idiom& idiom, const ProblemSize& size, std::int64_t elements,
                                        int samples, std::uint64_t seed) {
  if (idiom.row == RowOp::none) return sample_indices(elements, samples, seed);
  std::vector<std::int64_t> indices;
  for (std::int64_t row : sample_indices(elements / size.n, 4, seed))
    for (std::int64_t n = 0; n < size.n; ++n) indices.push_back(row * size.n + n);
  return indices;
}

float gelu(float x) { return 0.5f * x * (1.0f + std::erf(x / std::sqrt(2.0f))); }

namespace {

// C(m, n) of batch b: f32 sums in k order.
float matmul_element(const ProblemSize& size, const HostProblem& problem, std::int64_t b, std::int64_t m,
                     std::int64_t n) {
  const std::vector<float>& a = problem.values.at("A");
  const std::vector<float>& bm = problem.values.at("B");
  float c = 0;
  for (std::int64_t k = 0; k < size.k; ++k)
    c += a[static_cast<size_t>(b * size.m * size.k + m * size.k + k)] *
         bm[static_cast<size_t>(b * size.k * size.n + k * size.n + n)];
  return c;
}

// D's row `row` of a row idiom, before rounding, as the .tc's statements compute it.
std::vector<float> reference_row(const Idiom& idiom, const ProblemSize& size, const HostProblem& problem,
                                 std::int64_t row) {
  const std::int64_t b = row / size.m, m = row % size.m;
  std::vector<float> x(static_cast<size_t>(size.n));
  for (std::int64_t n = 0; n < size.n; ++n) x[static_cast<size_t>(n)] = matmul_element(size, problem, b, m, n);
  if (idiom.row == RowOp::softmax) {
    float mx = -INFINITY, sum = 0;
    for (float c : x) mx = std::max(mx, c);
    for (float& c : x) sum += c = std::exp(c - mx);
    for (float& c : x) c = c / sum;
    return x;
  }
  const std::vector<float>& bias = problem.values.at("bias");
  const std::vector<float>& gamma = problem.values.at("gamma");
  const std::vector<float>& beta = problem.values.at("beta");
  const float n_value = static_cast<float>(size.n);
  float mean = 0, var = 0;
  for (std::int64_t n = 0; n < size.n; ++n) {
    x[static_cast<size_t>(n)] += bias[static_cast<size_t>(n)];
    mean += x[static_cast<size_t>(n)] / n_value;
  }
  for (float& c : x) {
    c -= mean;
    var += c * c / n_value;
  }
  const float scale = 1.0f / std::sqrt(var + 1e-5f);
  for (std::int64_t n = 0; n < size.n; ++n)
    x[static_cast<size_t>(n)] = x[static_cast<size_t>(n)] * scale * gamma[static_cast<size_t>(n)] +
                                beta[static_cast<size_t>(n)];
  return x;
}

}  // namespace

float reference_element(const Idiom& idiom, DType dtype, const ProblemSize& size, const HostProblem& problem,
                        std::int64_t flat_index) {
  if (idiom.row != RowOp::none) {
    const std::int64_t row = flat_index / size.n;
    if (problem.cached_row != row) {
      problem.cached_values = reference_row(idiom, size, problem, row);
      problem.cached_row = row;
    }
    return reference::round_to(element_type(dtype), problem.cached_values[static_cast<size_t>(flat_index % size.n)]);
  }
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
