#include "rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "baseline_onednn.h"
#include "baselines.h"
#include "codegen/cpu_emit.h"
#include "frontend/frontend.h"
#include "runtime/cpu/cpu_module.h"
#include "schedule/cpu_target.h"

namespace polyfuse::bench {
namespace {

// The .tc text of each program: the examples with f32 for f16 (the baselines are f32).
const char* const kSoftmax =
    "def softmax(f32(M, N) X) -> (f32(M, N) Y) {\n"
    "  mx(m) max=! X(m, n)\n"
    "  e(m, n) = exp(X(m, n) - mx(m))\n"
    "  s(m) +=! e(m, n)\n"
    "  Y(m, n) = e(m, n) / s(m)\n}\n";
const char* const kLayernorm =
    "def layernorm_rows(f32(M, N) X, f32(N) gamma, f32(N) beta) -> (f32(M, N) Y) {\n"
    "  mean(m) +=! X(m, n) / N\n"
    "  d(m, n) = X(m, n) - mean(m)\n"
    "  var(m) +=! d(m, n) * d(m, n) / N\n"
    "  Y(m, n) = d(m, n) * rsqrt(var(m) + 1e-5) * gamma(n) + beta(n)\n}\n";
const char* const kGemmSoftmax =
    "def gemm_softmax(f32(M, K) A, f32(K, N) B) -> (f32(M, N) P) {\n"
    "  C(m, n) +=! A(m, k) * B(k, n)\n"
    "  mx(m) max=! C(m, n)\n"
    "  e(m, n) = exp(C(m, n) - mx(m))\n"
    "  s(m) +=! e(m, n)\n"
    "  P(m, n) = e(m, n) / s(m)\n}\n";
const char* const kMlp =
    "def mlp(f32(M, K) X, f32(K, H) W1, f32(H) b1, f32(H, N) W2, f32(N) b2) -> (f32(M, N) Y) {\n"
    "  T(m, h) +=! X(m, k) * W1(k, h)\n"
    "  A(m, h) = relu(T(m, h) + b1(h))\n"
    "  Z(m, n) +=! A(m, h) * W2(h, n)\n"
    "  Y(m, n) = Z(m, n) + b2(n)\n}\n";

// The CPU target's module of `text` at `sizes` on `threads` threads.
cpu_runtime::CpuModule polyfuse_module(const char* text, const SizeBindings& sizes, int threads) {
  const Program program = compile_source(SourceFile{"bench.tc", text}, sizes).programs.at(0);
  CpuScheduleOptions options;
  options.target = detect_cpu_target();
  options.threads = threads;
  return cpu_runtime::CpuModule::load(emit_cpu(program, options), cpu_entry_name(program.name));
}

double max_difference(const std::vector<float>& x, const std::vector<float>& y) {
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) worst = std::max(worst, double(std::fabs(x[i] - y[i])));
  return worst;
}

// The separate pass after an OpenBLAS sgemm: d = c + bias(n), then relu when asked.
void bias_pass(int threads, int64_t m, int64_t n, const float* c, const float* bias, bool relu, float* d) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float x = c[i * n + j] + bias[j];
      d[i * n + j] = relu ? std::max(x, 0.f) : x;
    }
}

// One line of output: each implementation's rate and polyfuse's ratio over it.
void print_line(const std::string& what, int threads, const std::vector<std::string>& names,
                const std::vector<double>& rates, const Row& row) {
  std::string line = fmt::format("  {:<28} {:2d} thr  polyfuse {:7.1f}", what, threads, rates[0]);
  for (std::size_t i = 1; i < names.size(); ++i)
    line += fmt::format("  {} {:7.1f} ({:5.2f}x)", names[i], rates[i], rates[0] / rates[i]);
  if (row.check != "ok") line += "  WARNING: " + row.check;
  std::printf("%s\n", line.c_str());
}

}  // namespace

void bench_rows(RowOperation operation, int64_t m, int64_t n, int threads, const Budget& budget, Report& report) {
  const bool softmax = operation == RowOperation::softmax;
  const cpu_runtime::CpuModule ours = polyfuse_module(softmax ? kSoftmax : kLayernorm, {{"M", m}, {"N", n}}, threads);
  const OnednnRows onednn(m, n, operation);
  const std::size_t size = std::size_t(m * n);
  std::vector<float> x = random_floats(size, 31);
  for (float& v : x) v *= 4.f;  // rows with a spread, so the max and the variance matter
  const std::vector<float> gamma = random_floats(std::size_t(n), 32), beta = random_floats(std::size_t(n), 33);
  std::vector<float> y_ours(size), y_onednn(size);
  std::vector<void*> buffers = {x.data()};
  if (!softmax) buffers.push_back(const_cast<float*>(gamma.data())), buffers.push_back(const_cast<float*>(beta.data()));
  buffers.push_back(y_ours.data());
  ours(buffers.data());
  onednn(threads, x.data(), gamma.data(), beta.data(), y_onednn.data());
  const double worst = max_difference(y_ours, y_onednn);

  const std::vector<double> seconds = median_seconds(
      {[&] { ours(buffers.data()); }, [&] { onednn(threads, x.data(), gamma.data(), beta.data(), y_onednn.data()); }},
      budget);
  Row row;
  row.section = std::string("rows_") + to_string(operation), row.problem = fmt::format("{}x{}", m, n);
  row.m = m, row.n = n, row.threads = threads;
  if (worst > 1e-4) row.check = fmt::format("differs from oneDNN by {:g}", worst);
  const double flops = double(softmax ? 5 : 8) * double(size);
  const std::vector<std::string> names = {"polyfuse", "onednn"};
  print_line(fmt::format("{} {}x{}", to_string(operation), m, n), threads, names,
             report.add_problem(row, names, seconds, flops), row);
}

void bench_gemm_softmax(int64_t s, int threads, const Budget& budget, Report& report) {
  const cpu_runtime::CpuModule ours = polyfuse_module(kGemmSoftmax, {{"M", s}, {"N", s}, {"K", s}}, threads);
  const OnednnMatmul matmul(s, s, s, FusedEpilogue::none);
  const OnednnRows softmax(s, s, RowOperation::softmax);
  const std::size_t size = std::size_t(s * s);
  const auto a = random_floats(size, 41), b = random_floats(size, 42);
  std::vector<float> p_ours(size), c(size), p_onednn(size), c_blas(size), p_blas(size);
  void* buffers[] = {const_cast<float*>(a.data()), const_cast<float*>(b.data()), p_ours.data()};
  const auto onednn = [&] {
    matmul(threads, a.data(), b.data(), nullptr, c.data());
    softmax(threads, c.data(), nullptr, nullptr, p_onednn.data());
  };
  const auto blas = [&] {  // row-major C = A B is column-major C^T = B^T A^T
    openblas_sgemm(threads, s, s, s, b.data(), s, a.data(), s, c_blas.data(), s, 0.f);
    softmax(threads, c_blas.data(), nullptr, nullptr, p_blas.data());
  };
  ours(buffers);
  onednn();
  blas();
  const double worst = std::max(max_difference(p_ours, p_onednn), max_difference(p_ours, p_blas));

  const std::vector<double> seconds =
      median_seconds({[&] { ours(buffers); }, onednn, Timed(blas, openblas_settle(threads))}, budget);
  Row row;
  row.section = "gemm_softmax", row.problem = fmt::format("{0}x{0}x{0}", s);
  row.m = row.n = row.k = s, row.threads = threads;
  if (worst > 1e-4) row.check = fmt::format("differs from oneDNN or OpenBLAS by {:g}", worst);
  const std::vector<std::string> names = {"polyfuse", "onednn", "openblas+softmax"};
  print_line(fmt::format("gemm_softmax {}", s), threads, names,
             report.add_problem(row, names, seconds, 2.0 * double(s) * double(s) * double(s)), row);
}

void bench_mlp(int64_t m, int64_t s, int threads, const Budget& budget, Report& report) {
  const cpu_runtime::CpuModule ours =
      polyfuse_module(kMlp, {{"M", m}, {"K", s}, {"H", s}, {"N", s}}, threads);
  const OnednnMatmul layer1(m, s, s, FusedEpilogue::bias_relu), layer2(m, s, s, FusedEpilogue::bias);
  const auto x = random_floats(std::size_t(m * s), 51), w1 = random_floats(std::size_t(s * s), 52),
             w2 = random_floats(std::size_t(s * s), 53), b1 = random_floats(std::size_t(s), 54),
             b2 = random_floats(std::size_t(s), 55);
  const std::size_t size = std::size_t(m * s);
  std::vector<float> y_ours(size), hidden(size), y_onednn(size), c_blas(size), hidden_blas(size), y_blas(size);
  void* buffers[] = {const_cast<float*>(x.data()), const_cast<float*>(w1.data()), const_cast<float*>(b1.data()),
                     const_cast<float*>(w2.data()), const_cast<float*>(b2.data()), y_ours.data()};
  const auto onednn = [&] {
    layer1(threads, x.data(), w1.data(), b1.data(), hidden.data());
    layer2(threads, hidden.data(), w2.data(), b2.data(), y_onednn.data());
  };
  const auto blas = [&] {  // row-major C = A B is column-major C^T = B^T A^T
    openblas_sgemm(threads, s, m, s, w1.data(), s, x.data(), s, c_blas.data(), s, 0.f);
    bias_pass(threads, m, s, c_blas.data(), b1.data(), true, hidden_blas.data());
    openblas_sgemm(threads, s, m, s, w2.data(), s, hidden_blas.data(), s, c_blas.data(), s, 0.f);
    bias_pass(threads, m, s, c_blas.data(), b2.data(), false, y_blas.data());
  };
  ours(buffers);
  onednn();
  blas();
  const double worst = std::max(max_difference(y_ours, y_onednn), max_difference(y_ours, y_blas));

  const std::vector<double> seconds =
      median_seconds({[&] { ours(buffers); }, onednn, Timed(blas, openblas_settle(threads))}, budget);
  Row row;
  row.section = "mlp", row.problem = fmt::format("{}x{}x{}x{}", m, s, s, s);
  row.m = m, row.n = s, row.k = s, row.threads = threads;
  if (worst > 1e-3 * double(s)) row.check = fmt::format("differs from oneDNN or OpenBLAS by {:g}", worst);
  const std::vector<std::string> names = {"polyfuse", "onednn", "openblas+pass"};
  print_line(fmt::format("mlp {} x {}", m, s), threads, names,
             report.add_problem(row, names, seconds, 4.0 * double(m) * double(s) * double(s)), row);
}

}  // namespace polyfuse::bench
