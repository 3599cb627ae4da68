#include "fused.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "baselines.h"
#include "codegen/cpu_emit.h"
#include "frontend/frontend.h"
#include "runtime/cpu/cpu_module.h"
#include "schedule/cpu_target.h"

namespace polyfuse::bench {
namespace {

// The .tc program of `epilogue` (f32).
std::string program_text(FusedEpilogue epilogue) {
  const std::string name = std::string("gemm_") + to_string(epilogue);
  const std::string matmul = "  C(m, n) +=! A(m, k) * B(k, n)\n";
  switch (epilogue) {
    case FusedEpilogue::bias_relu:
      return "def " + name + "(f32(M, K) A, f32(K, N) B, f32(N) bias) -> (f32(M, N) D) {\n" + matmul +
             "  D(m, n) = relu(C(m, n) + bias(n))\n}\n";
    case FusedEpilogue::bias_gelu:
      return "def " + name + "(f32(M, K) A, f32(K, N) B, f32(N) bias) -> (f32(M, N) D) {\n" + matmul +
             "  D(m, n) = gelu_erf(C(m, n) + bias(n))\n}\n";
    case FusedEpilogue::residual:
      return "def " + name + "(f32(M, K) A, f32(K, N) B, f32(M, N) R) -> (f32(M, N) D) {\n" + matmul +
             "  D(m, n) = C(m, n) + R(m, n)\n}\n";
    case FusedEpilogue::none:  // batched.cc's plain batched GEMM
    case FusedEpilogue::bias: break;  // rows.cc's MLP
  }
  return "";
}

// The separate pass after OpenBLAS: the epilogue on C, one OpenMP loop the compiler
// vectorises (bias and relu; erf is a libm call per element).
void epilogue_pass(FusedEpilogue epilogue, int threads, int64_t m, int64_t n, const float* c, const float* operand,
                   float* d) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float x = c[i * n + j];
      switch (epilogue) {
        case FusedEpilogue::bias_relu: d[i * n + j] = std::max(x + operand[j], 0.f); break;
        case FusedEpilogue::bias_gelu: {
          const float y = x + operand[j];
          d[i * n + j] = 0.5f * y * (1.f + std::erf(y * 0.70710678f));
          break;
        }
        case FusedEpilogue::residual: d[i * n + j] = x + operand[i * n + j]; break;
        case FusedEpilogue::none: d[i * n + j] = x; break;
        case FusedEpilogue::bias: d[i * n + j] = x + operand[j]; break;
      }
    }
}

}  // namespace

void bench_fused(FusedEpilogue epilogue, int64_t s, int threads, const Budget& budget, Report& report) {
  const SizeBindings sizes = {{"M", s}, {"N", s}, {"K", s}};
  const Program program = compile_source(SourceFile{"bench.tc", program_text(epilogue)}, sizes).programs.at(0);
  CpuScheduleOptions options;
  options.target = detect_cpu_target();
  options.threads = threads;
  const cpu_runtime::CpuModule ours =
      cpu_runtime::CpuModule::load(emit_cpu(program, options), cpu_entry_name(program.name));
  const OnednnMatmul onednn(s, s, s, epilogue);

  const auto a = random_floats(std::size_t(s * s), 11), b = random_floats(std::size_t(s * s), 12);
  const bool residual = epilogue == FusedEpilogue::residual;
  const auto operand = random_floats(std::size_t(residual ? s * s : s), 13);  // R or bias
  std::vector<float> d_ours(std::size_t(s * s)), c(d_ours.size()), d_blas(d_ours.size());
  // oneDNN's sum post-op adds A B to D, which holds R for the residual.
  std::vector<float> d_onednn = residual ? operand : std::vector<float>(d_ours.size());
  void* buffers[] = {const_cast<float*>(a.data()), const_cast<float*>(b.data()), const_cast<float*>(operand.data()),
                     d_ours.data()};
  // Check once, polyfuse against oneDNN.
  ours(buffers);
  onednn(threads, a.data(), b.data(), operand.data(), d_onednn.data());
  double worst = 0;
  for (std::size_t i = 0; i < d_ours.size(); ++i) worst = std::max(worst, double(std::fabs(d_ours[i] - d_onednn[i])));

  const double flops = 2.0 * double(s) * double(s) * double(s);
  const std::vector<double> seconds = median_seconds(
      {[&] { ours(buffers); }, [&] { onednn(threads, a.data(), b.data(), operand.data(), d_onednn.data()); },
       Timed(
           [&] {
             // Row-major C = A B is column-major C^T = B^T A^T.
             openblas_sgemm(threads, s, s, s, b.data(), s, a.data(), s, c.data(), s, 0.f);
             epilogue_pass(epilogue, threads, s, s, c.data(), operand.data(), d_blas.data());
           },
           openblas_settle(threads))},
      budget);
  Row row;
  row.section = std::string("fused_") + to_string(epilogue), row.problem = fmt::format("{0}x{0}x{0}", s);
  row.m = row.n = row.k = s, row.threads = threads;
  if (worst > 1e-4 * double(s)) row.check = fmt::format("differs from oneDNN by {:g}", worst);
  const std::vector<double> g = report.add_problem(row, {"polyfuse", "onednn", "openblas+pass"}, seconds, flops);
  std::printf("  %-9s %5lld %2d thr  polyfuse %7.1f  onednn %7.1f (%5.2fx)  openblas+pass %7.1f (%5.2fx)%s\n",
              to_string(epilogue), (long long)s, threads, g[0], g[1], g[0] / g[1], g[2], g[0] / g[2],
              row.check == "ok" ? "" : ("  WARNING: " + row.check).c_str());
}

}  // namespace polyfuse::bench
