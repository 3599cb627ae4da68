#include "batched.h"

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

void bench_batched(int64_t batch, int64_t s, int threads, const Budget& budget, Report& report) {
  // examples/batched_gemm.tc with f32 for f16: the baselines are f32 libraries.
  const std::string text =
      "def batched_gemm(f32(B, M, K) A, f32(B, K, N) W) -> (f32(B, M, N) C) {\n"
      "  C(b, m, n) +=! A(b, m, k) * W(b, k, n)\n}\n";
  const SizeBindings sizes = {{"B", batch}, {"M", s}, {"N", s}, {"K", s}};
  const Program program = compile_source(SourceFile{"batched_gemm.tc", text}, sizes).programs.at(0);
  CpuScheduleOptions options;
  options.target = detect_cpu_target();
  options.threads = threads;
  const cpu_runtime::CpuModule ours =
      cpu_runtime::CpuModule::load(emit_cpu(program, options), cpu_entry_name(program.name));
  const OnednnMatmul onednn(s, s, s, FusedEpilogue::none, batch);

  const std::size_t size = std::size_t(batch * s * s);
  const auto a = random_floats(size, 21), w = random_floats(size, 22);
  std::vector<float> c_ours(size), c_onednn(size), c_blas(size);
  void* buffers[] = {const_cast<float*>(a.data()), const_cast<float*>(w.data()), c_ours.data()};
  auto blas_loop = [&] {
    for (int64_t b = 0; b < batch; ++b) {  // row-major C_b = A_b W_b is column-major C_b^T = W_b^T A_b^T
      const std::size_t offset = std::size_t(b * s * s);
      openblas_sgemm(threads, s, s, s, w.data() + offset, s, a.data() + offset, s, c_blas.data() + offset, s, 0.f);
    }
  };
  // Check once: polyfuse against oneDNN and OpenBLAS.
  ours(buffers);
  onednn(threads, a.data(), w.data(), nullptr, c_onednn.data());
  blas_loop();
  double worst = 0;
  for (std::size_t i = 0; i < size; ++i)
    worst = std::max({worst, double(std::fabs(c_ours[i] - c_onednn[i])), double(std::fabs(c_ours[i] - c_blas[i]))});

  const double flops = 2.0 * double(batch) * double(s) * double(s) * double(s);
  const std::vector<double> seconds = median_seconds(
      {[&] { ours(buffers); }, [&] { onednn(threads, a.data(), w.data(), nullptr, c_onednn.data()); },
       Timed(blas_loop, openblas_settle(threads))},
      budget);
  Row row;
  row.section = "batched_gemm", row.problem = fmt::format("{0} x {1}x{1}x{1}", batch, s);
  row.m = row.n = row.k = s, row.batch = batch, row.threads = threads;
  if (worst > 1e-4 * double(s)) row.check = fmt::format("differs from oneDNN or OpenBLAS by {:g}", worst);
  const std::vector<double> g = report.add_problem(row, {"polyfuse", "onednn", "openblas_loop"}, seconds, flops);
  std::printf("  %3lld x %5lld %2d thr  polyfuse %7.1f  onednn %7.1f (%5.2fx)  openblas loop %7.1f (%5.2fx)%s\n",
              (long long)batch, (long long)s, threads, g[0], g[1], g[0] / g[1], g[2], g[0] / g[2],
              row.check == "ok" ? "" : ("  WARNING: " + row.check).c_str());
}

}  // namespace polyfuse::bench
