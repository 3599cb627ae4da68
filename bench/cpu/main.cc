// polyfuse-bench-cpu: GFLOP/s of kernels/cpu next to OpenBLAS sgemm, libxsmm 1.17, oneDNN
// and the measured FMA peak, single thread and all cores (OMP_NUM_THREADS), fp32, hot caches.
//   1. FMA peak;  2. BRGEMM on the seed's primitive shapes (tensor-operation-backend
//   §5.3: 32x32x32, batch 1 and 8);  3. the seed's three tensor operations (1024 x 1024
//   x 256 in 32-blocks);  4. a GEMM sweep 64..2048;  5. GEMMs with fused epilogues (bias +
//   ReLU, bias + GELU, residual) from .tc through the CPU target, against oneDNN's matmul
//   with post-ops and OpenBLAS + a separate pass (fused.h);  6. convolutions (ResNet-50's
//   3x3 and 1x1 layers, odd shapes) against oneDNN's convolution, plain and with bias + ReLU
//   (conv.h). `--conv` runs only section 6.
// --quick runs reduced sets (about 45 s on an idle machine before section 6, which adds
// 4 layers x 2 variants x 2 thread counts). The last line is
//   summary: brgemm_vs_libxsmm=R1 gemm_vs_openblas=R2 peak_fraction=R3
//            fused_vs_onednn_1thr=R4 fused_vs_openblas_pass_1thr=R5 (and _<all>thr)
//            conv_vs_onednn_1thr=R6 conv_bias_relu_vs_onednn_1thr=R7 (and _<all>thr)
// (geomeans: BRGEMM single thread vs libxsmm, GEMM 256..2048 single thread vs OpenBLAS,
// BRGEMM single thread vs the single-thread FMA peak: the best of its measurements in this
// run, never above 1 — peak_gauge.h; n/a when a kernel outran every measurement).
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "baselines.h"
#include "conv.h"
#include "fused.h"
#include "fma_peak.h"
#include "measure.h"
#include "peak_gauge.h"
#include "polyfuse/cpu/kernels.h"

namespace polyfuse::bench {
namespace {

using cpu::Brgemm;
using cpu::BrgemmConfig;

double geomean(const std::vector<double>& v) {
  double log_sum = 0;
  for (double x : v) log_sum += std::log(x);
  return v.empty() ? 0 : std::exp(log_sum / double(v.size()));
}

double max_diff(const std::vector<float>& x, const std::vector<float>& y) {
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, double(std::fabs(x[i] - y[i])));
  return worst;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

struct Results {
  std::vector<double> brgemm_vs_xsmm, gemm_vs_openblas;
  std::vector<double> brgemm_gflops;  // single thread, for the fraction of the final peak
};

// Section 2: one BRGEMM shape, hot caches; every thread runs its own operands.
void bench_brgemm(int64_t m, int64_t n, int64_t k, int64_t batch, int threads, PeakGauge& peak,
                  const Budget& budget, Results& results) {
  const int64_t sa = m * k, sb = k * n;  // the seed's 1024-element batch strides for 32^3
  BrgemmConfig cfg;
  cfg.m = m, cfg.n = n, cfg.k = k, cfg.batch = batch;
  const Brgemm ours(cfg);
  const XsmmBrgemm xsmm(m, n, k, m, k, m, sa, sb);
  const double flops = 2.0 * double(m * n * k * batch);
  // Correctness of both against each other first.
  {
    const auto a = random_floats(size_t(sa * batch), 1), b = random_floats(size_t(sb * batch), 2);
    std::vector<float> c1(size_t(m * n), 0.f), c2 = c1;
    ours(a.data(), b.data(), c1.data(), m, k, m, sa, sb);
    if (xsmm.ok()) xsmm(a.data(), b.data(), c2.data(), batch);
    if (xsmm.ok() && max_diff(c1, c2) > 1e-3)
      std::printf("  WARNING: polyfuse and libxsmm disagree (max diff %g)\n", max_diff(c1, c2));
  }
  auto run_threads = [&](auto&& body) {
    if (threads == 1) return body();
#pragma omp parallel num_threads(threads)
    body();
  };
  auto measure = [&](bool use_xsmm) {
    double total = 0;
    auto body = [&] {
      const auto a = random_floats(size_t(sa * batch), 1), b = random_floats(size_t(sb * batch), 2);
      std::vector<float> c(size_t(m * n), 0.f);
      const double g = gflops([&] {
        if (use_xsmm) xsmm(a.data(), b.data(), c.data(), batch);
        else ours(a.data(), b.data(), c.data(), m, k, m, sa, sb);
      }, flops, budget);
#pragma omp atomic
      total += g;
    };
    run_threads(body);
    return total;
  };
  const double g_ours = measure(false);
  const double g_xsmm = xsmm.ok() ? measure(true) : 0;
  std::printf("  %4lldx%-4lldx%-4lld batch %-3lld %2d thr  polyfuse %7.1f  libxsmm %7.1f  ratio %5.2f"
              "  of peak %6s  (%s)\n",
              (long long)m, (long long)n, (long long)k, (long long)batch, threads, g_ours, g_xsmm,
              g_xsmm > 0 ? g_ours / g_xsmm : 0.0, percent_text(peak.fraction(g_ours)).c_str(),
              ours.packs() ? "packed" : "direct");
  if (threads == 1) {
    if (g_xsmm > 0) results.brgemm_vs_xsmm.push_back(g_ours / g_xsmm);
    results.brgemm_gflops.push_back(g_ours);
  }
}

// Section 3: the seed's tensor operation `which`, next to the same loop nest around a
// libxsmm kernel and to one OpenBLAS sgemm of the same flops (1024 x 1024 x 256).
void bench_tensor_operation(int which, int threads, const Budget& budget) {
  cpu::TensorOperationConfig c;
  c.first_touch = which == 3 ? cpu::PrimType::zero : cpu::PrimType::none;
  c.main = which == 1 ? cpu::PrimType::gemm : cpu::PrimType::brgemm;
  c.last_touch = which == 3 ? cpu::PrimType::relu : cpu::PrimType::none;
  using D = cpu::DimType;
  using E = cpu::ExecType;
  c.dim_types = {D::m, D::n, D::k, D::m, D::n, D::k};
  const E outer = threads > 1 ? E::shared : E::seq;
  c.exec_types = {outer, outer, which == 1 ? E::seq : E::prim, E::prim, E::prim, E::prim};
  c.dim_sizes = {32, 32, 8, 32, 32, 32};
  c.strides_in0 = {8192, 0, 1024, 1, 0, 32};
  c.strides_in1 = {0, 8192, 1024, 0, 32, 1};
  c.strides_out = {32768, 1024, 0, 1, 32, 0};
  const cpu::TensorOperation op(c);
  const auto a = random_floats(1 << 18, 3), b = random_floats(1 << 18, 4);
  std::vector<float> out(1 << 20, 0.f), ref(1 << 20, 0.f);
  const double g_ours = gflops([&] { op.execute(a.data(), b.data(), out.data()); }, op.flops(), budget);
  const XsmmBrgemm xsmm(32, 32, 32, 32, 32, 32, 1024, 1024);
  const int64_t batch = which == 1 ? 1 : 8;
  auto xsmm_loops = [&] {
#pragma omp parallel for collapse(2) num_threads(threads) schedule(static)
    for (int64_t m0 = 0; m0 < 32; ++m0)
      for (int64_t n0 = 0; n0 < 32; ++n0) {
        float* cb = ref.data() + m0 * 32768 + n0 * 1024;
        if (which == 3) std::memset(cb, 0, 1024 * sizeof(float));
        for (int64_t k0 = 0; k0 < 8; k0 += batch)
          xsmm(a.data() + m0 * 8192 + k0 * 1024, b.data() + n0 * 8192 + k0 * 1024, cb, batch);
        if (which == 3)
          for (int i = 0; i < 1024; ++i) cb[i] = cb[i] > 0 ? cb[i] : 0;
      }
  };
  const double g_xsmm = gflops(xsmm_loops, op.flops(), budget);
  const auto ga = random_floats(1024 * 256, 5), gb = random_floats(256 * 1024, 6);
  std::vector<float> gc(1024 * 1024, 0.f);
  const double g_blas = gflops([&] {
    openblas_sgemm(threads, 1024, 1024, 256, ga.data(), 1024, gb.data(), 256, gc.data(), 1024, 1.f);
  }, op.flops(), budget);
  if (threads > 1) openblas_park_threads();
  if (which == 3) {  // same output as the libxsmm loops (both overwrite, then relu)
    op.execute(a.data(), b.data(), out.data());
    xsmm_loops();
    if (max_diff(out, ref) > 1e-3) std::printf("  WARNING: tensor operation differs from libxsmm loops\n");
  }
  std::printf("  config %d %2d thr  polyfuse %7.1f  libxsmm loops %7.1f (%5.2fx)  openblas 1024x1024x256 %7.1f (%5.2fx)\n",
              which, threads, g_ours, g_xsmm, g_ours / g_xsmm, g_blas, g_ours / g_blas);
}

// Section 4: square GEMM C += A B, column-major. All cores: columns split over threads.
void bench_gemm(int64_t s, int threads, const Budget& budget, Results& results) {
  const auto a = random_floats(size_t(s * s), 7), b = random_floats(size_t(s * s), 8);
  std::vector<float> c(size_t(s * s), 0.f), c_blas = c;
  const int64_t width = (s + threads - 1) / threads;
  std::vector<Brgemm> kernels;
  BrgemmConfig cfg;
  cfg.m = s, cfg.k = s, cfg.n = width;
  kernels.emplace_back(cfg);
  const int64_t last = s - (threads - 1) * width;
  if (last != width && last > 0) {
    cfg.n = last;
    kernels.emplace_back(cfg);
  }
  auto ours = [&] {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; ++t) {
      const int64_t j0 = t * width;
      if (j0 >= s) continue;
      const Brgemm& kernel = (j0 + width <= s) ? kernels[0] : kernels.back();
      kernel(a.data(), b.data() + j0 * s, c.data() + j0 * s, s, s, s);
    }
  };
  const double flops = 2.0 * double(s) * double(s) * double(s);
  Budget big = budget;
  if (s >= 1024) big.batches = 2;
  // Check once: C = A B from zero for both.
  ours();
  openblas_sgemm(1, s, s, s, a.data(), s, b.data(), s, c_blas.data(), s, 0.f);
  const double diff = max_diff(c, c_blas);
  const double g_ours = gflops(ours, flops, big);
  const double g_blas = gflops([&] {
    openblas_sgemm(threads, s, s, s, a.data(), s, b.data(), s, c_blas.data(), s, 1.f);
  }, flops, big);
  if (threads > 1) openblas_park_threads();
  std::string xsmm_text = "      -";
  double g_xsmm = 0;
  if (s <= 256) {
    const XsmmBrgemm xsmm(s, s, s, s, s, s, 0, 0);
    if (xsmm.ok()) {
      g_xsmm = gflops([&] { xsmm(a.data(), b.data(), c.data(), 1); }, flops, big);
      char buf[32];
      std::snprintf(buf, sizeof buf, "%7.1f", g_xsmm);
      xsmm_text = buf;
    }
  }
  std::printf("  %5lld %2d thr  polyfuse %7.1f  openblas %7.1f (%5.2fx)  libxsmm %s  %s%s\n",
              (long long)s, threads, g_ours, g_blas, g_ours / g_blas, xsmm_text.c_str(),
              kernels[0].packs() ? "packed" : "direct",
              diff > 1e-3 * double(s) ? "  WARNING: differs from openblas" : "");
  if (threads == 1 && s >= 256) results.gemm_vs_openblas.push_back(g_ours / g_blas);
}

}  // namespace
}  // namespace polyfuse::bench

int main(int argc, char** argv) {
  using namespace polyfuse::bench;
  bool quick = false, conv_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    else if (std::strcmp(argv[i], "--conv") == 0) conv_only = true;  // only the convolutions (conv.h)
    else {
      std::fprintf(stderr, "usage: polyfuse-bench-cpu [--quick] [--conv]\n");
      return 2;
    }
  }
  Budget budget;
  budget.seconds_per_batch = quick ? 0.12 : 0.5;
  budget.batches = quick ? 2 : 3;
  const int all = thread_count();
  std::vector<int> thread_counts = {1};
  if (all > 1) thread_counts.push_back(all);

  std::printf("polyfuse-bench-cpu%s: %s, %d threads, kernels/cpu isa %s%s, load average %s\n",
              quick ? " --quick" : "", cpu_model().c_str(), all,
              polyfuse::cpu::to_string(polyfuse::cpu::best_isa()),
              polyfuse::cpu::cpu_has_avx512_bf16() ? " (+bf16)" : "", load_average().c_str());
  std::printf("GFLOP/s, fp32, hot caches; ratios are polyfuse / baseline\n");

  if (conv_only) {
    const std::string conv = bench_conv_section(quick, thread_counts, budget);
    std::printf("summary:%s\n", conv.c_str());
    return 0;
  }
  std::printf("FMA peak (measured; again whenever a kernel looks faster):\n");
  const char* peak_isa = "";
  const double peak_seconds = quick ? 0.3 : 1.0;
  PeakGauge peak1([&] { return fma_peak_gflops(1, peak_seconds, &peak_isa); });
  std::printf("  1 thr  %7.1f  (%s)\n", peak1.gflops(), peak_isa);
  PeakGauge peak_all([&] { return all > 1 ? fma_peak_gflops(all, peak_seconds, &peak_isa) : peak1.gflops(); });
  if (all > 1) std::printf("  %d thr  %7.1f\n", all, peak_all.gflops());

  Results results;
  std::printf("BRGEMM (seed shapes, column-major, batch strides m*k and k*n):\n");
  for (int threads : thread_counts)
    for (auto [m, n, k, batch] : {std::array<int64_t, 4>{32, 32, 32, 1}, {32, 32, 32, 8}, {16, 6, 64, 1}})
      bench_brgemm(m, n, k, batch, threads, threads == 1 ? peak1 : peak_all, budget, results);

  std::printf("Tensor operations (seed §5.3 configurations 1-3):\n");
  for (int threads : thread_counts)
    for (int which : {1, 2, 3}) bench_tensor_operation(which, threads, budget);

  std::printf("GEMM sweep (square, C += A B):\n");
  const std::vector<int64_t> sizes = quick ? std::vector<int64_t>{64, 256, 512, 1024, 2048}
                                           : std::vector<int64_t>{64, 128, 256, 384, 512, 768, 1024, 1536, 2048};
  for (int threads : thread_counts)
    for (int64_t s : sizes) bench_gemm(s, threads, budget, results);

  std::printf("Fused GEMM epilogues (f32, row-major, square; polyfuse's CPU target, oneDNN matmul with post-ops, "
              "OpenBLAS sgemm + a separate pass):\n");
  std::vector<FusedRatios> fused;
  const std::vector<int64_t> fused_sizes = quick ? std::vector<int64_t>{256, 1024} : std::vector<int64_t>{256, 512, 1024, 2048};
  for (int threads : thread_counts)
    for (FusedEpilogue epilogue : {FusedEpilogue::bias_relu, FusedEpilogue::bias_gelu, FusedEpilogue::residual})
      for (int64_t s : fused_sizes) fused.push_back(bench_fused(epilogue, s, threads, budget));

  // Every fraction against the best peak of the whole run (it only grew): none is above 1.
  std::vector<double> fractions;
  bool all_known = true;
  for (double g : results.brgemm_gflops) {
    const std::optional<double> fraction = peak1.fraction(g);
    all_known = all_known && fraction.has_value();
    if (fraction) fractions.push_back(*fraction);
  }
  const std::string conv = bench_conv_section(quick, thread_counts, budget);
  std::printf("FMA peak (best measurement of the run): 1 thr %7.1f\n", peak1.gflops());
  char peak_text[32] = "n/a";
  if (all_known && !fractions.empty()) std::snprintf(peak_text, sizeof peak_text, "%.2f", geomean(fractions));
  std::printf("summary: brgemm_vs_libxsmm=%.2f gemm_vs_openblas=%.2f peak_fraction=%s",
              geomean(results.brgemm_vs_xsmm), geomean(results.gemm_vs_openblas), peak_text);
  for (int threads : thread_counts) {
    std::vector<double> vs_onednn, vs_openblas_pass;
    for (const FusedRatios& r : fused)
      if (r.threads == threads) vs_onednn.push_back(r.vs_onednn), vs_openblas_pass.push_back(r.vs_openblas_pass);
    std::printf(" fused_vs_onednn_%dthr=%.2f fused_vs_openblas_pass_%dthr=%.2f", threads, geomean(vs_onednn), threads,
                geomean(vs_openblas_pass));
  }
  std::printf("%s\n", conv.c_str());
  return 0;
}
