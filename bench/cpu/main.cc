// polyfuse-bench-cpu: GFLOP/s of kernels/cpu next to OpenBLAS sgemm, libxsmm 1.17, oneDNN
// and the measured FMA peak, single thread and all cores (OMP_NUM_THREADS), fp32, hot caches.
//   1. FMA peak;  2. BRGEMM on the seed's primitive shapes (tensor-operation-backend
//   §5.3: 32x32x32, batch 1 and 8);  3. the seed's three tensor operations (1024 x 1024
//   x 256 in 32-blocks);  4. a GEMM sweep 64..2048;  5. GEMMs with fused epilogues (bias +
//   ReLU, bias + GELU, residual) from .tc through the CPU target, against oneDNN's matmul
//   with post-ops and OpenBLAS + a separate pass (fused.h).
//   6. batched GEMM (examples/batched_gemm.tc in f32) against oneDNN's batched matmul and
//   OpenBLAS sgemm looped over the batch (batched.h);  7. convolutions (ResNet-50's 3x3 and
//   1x1 layers, odd shapes, ResNeXt-50's stage-3 grouped 3x3) against oneDNN's convolution, plain and with bias + ReLU
//   (conv.h). `--conv` runs only section 7.  8. row reductions (softmax, layernorm) and matmul chains
//   (GEMM + softmax, a two-layer MLP) against oneDNN's primitives (rows.h).
// Method (measure.h): in every row polyfuse and its baselines are timed side by side, their
// samples interleaved, and each one's time is the median of its samples; the FMA peak is
// measured in the same run at each thread count (peak_gauge.h: no fraction above 1).
// --threads LIST picks the thread counts (default: 1 and all cores), --csv FILE writes one
// line per problem x implementation x thread count (report.h; bench/cpu/plot.py draws it).
// --quick keeps the run short. The last line is
//   summary: brgemm_vs_libxsmm=R1 gemm_vs_openblas=R2 peak_fraction=R3
//            fused_vs_onednn_1thr=R4 fused_vs_openblas_pass_1thr=R5
//            batched_vs_onednn_1thr=R6 batched_vs_openblas_loop_1thr=R7 (and _<N>thr)
//            rows_vs_onednn_1thr=R10 gemm_softmax_vs_onednn_1thr=R11 mlp_vs_onednn_1thr=R12 (and _<N>thr)
//            conv_vs_onednn_1thr=R8 conv_bias_relu_vs_onednn_1thr=R9 (and _<N>thr; conv_grouped.. apart)
// (geomeans, n/a without rows: BRGEMM single thread vs libxsmm, GEMM 256..2048 single thread vs OpenBLAS,
// BRGEMM single thread vs the single-thread FMA peak as it stands at the end of the run).
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "baselines.h"
#include "batched.h"
#include "conv.h"
#include "fused.h"
#include "fma_peak.h"
#include "measure.h"
#include "peak_gauge.h"
#include "polyfuse/cpu/kernels.h"
#include "report.h"
#include "rows.h"
#include "schedule/cpu_plan.h"

namespace polyfuse::bench {
namespace {

using cpu::Brgemm;
using cpu::BrgemmConfig;

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

std::string utc_now() {
  char text[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

std::string shape_text(int64_t m, int64_t n, int64_t k) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

// Section 2: one BRGEMM shape, hot caches; every thread runs its own operands, polyfuse's
// samples interleaved with libxsmm's.
void bench_brgemm(int64_t m, int64_t n, int64_t k, int64_t batch, int threads, const Budget& budget,
                  Report& report) {
  const int64_t sa = m * k, sb = k * n;  // the seed's 1024-element batch strides for 32^3
  BrgemmConfig cfg;
  cfg.m = m, cfg.n = n, cfg.k = k, cfg.batch = batch;
  const Brgemm ours(cfg);
  const XsmmBrgemm xsmm(m, n, k, m, k, m, sa, sb);
  const double flops = 2.0 * double(m * n * k * batch);
  // Correctness of both against each other first.
  std::string check = "ok";
  {
    const auto a = random_floats(size_t(sa * batch), 1), b = random_floats(size_t(sb * batch), 2);
    std::vector<float> c1(size_t(m * n), 0.f), c2 = c1;
    ours(a.data(), b.data(), c1.data(), m, k, m, sa, sb);
    if (xsmm.ok()) xsmm(a.data(), b.data(), c2.data(), batch);
    if (xsmm.ok() && max_diff(c1, c2) > 1e-3) check = fmt::format("differs from libxsmm by {:g}", max_diff(c1, c2));
  }
  std::vector<double> rates(xsmm.ok() ? 2 : 1, 0.0);  // summed over the threads
  auto body = [&] {
    const auto a = random_floats(size_t(sa * batch), 1), b = random_floats(size_t(sb * batch), 2);
    std::vector<float> c(size_t(m * n), 0.f);
    std::vector<Timed> runs = {[&] { ours(a.data(), b.data(), c.data(), m, k, m, sa, sb); }};
    if (xsmm.ok()) runs.emplace_back([&] { xsmm(a.data(), b.data(), c.data(), batch); });
    const std::vector<double> seconds = median_seconds(runs, budget);
    for (std::size_t i = 0; i < seconds.size(); ++i) {
      const double g = gflops_of(flops, seconds[i]);
#pragma omp atomic
      rates[i] += g;
    }
  };
  if (threads == 1) {
    body();
  } else {
#pragma omp parallel num_threads(threads)
    body();
  }
  // The report's time per call of all threads together (each ran `flops`).
  std::vector<double> seconds;
  for (double g : rates) seconds.push_back(g > 0 ? threads * flops * 1e-9 / g : 0);
  Row row;
  row.section = "brgemm", row.problem = shape_text(m, n, k) + " batch " + std::to_string(batch);
  row.m = m, row.n = n, row.k = k, row.batch = batch, row.threads = threads, row.check = check;
  std::vector<std::string> names = {"polyfuse"};
  if (xsmm.ok()) names.push_back("libxsmm");
  report.add_problem(row, names, seconds, threads * flops);
  const double g_xsmm = rates.size() > 1 ? rates[1] : 0;
  std::printf("  %4lldx%-4lldx%-4lld batch %-3lld %2d thr  polyfuse %7.1f  libxsmm %7.1f  ratio %5.2f  (%s)%s\n",
              (long long)m, (long long)n, (long long)k, (long long)batch, threads, rates[0], g_xsmm,
              g_xsmm > 0 ? rates[0] / g_xsmm : 0.0, ours.packs() ? "packed" : "direct",
              check == "ok" ? "" : ("  WARNING: " + check).c_str());
}

// Section 3: the seed's tensor operation `which`, next to the same loop nest around a
// libxsmm kernel and to one OpenBLAS sgemm of the same flops (1024 x 1024 x 256).
void bench_tensor_operation(int which, int threads, const Budget& budget, Report& report) {
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
  const auto ga = random_floats(1024 * 256, 5), gb = random_floats(256 * 1024, 6);
  std::vector<float> gc(1024 * 1024, 0.f);
  std::string check = "ok";
  if (which == 3) {  // same output as the libxsmm loops (both overwrite, then relu)
    op.execute(a.data(), b.data(), out.data());
    xsmm_loops();
    if (max_diff(out, ref) > 1e-3) check = "differs from the libxsmm loops";
  }
  const std::vector<double> seconds = median_seconds(
      {[&] { op.execute(a.data(), b.data(), out.data()); }, xsmm_loops,
       Timed([&] { openblas_sgemm(threads, 1024, 1024, 256, ga.data(), 1024, gb.data(), 256, gc.data(), 1024, 1.f); },
             openblas_settle(threads))},
      budget);
  Row row;
  row.section = "tensor_op", row.problem = fmt::format("config {}", which);
  row.m = 1024, row.n = 1024, row.k = 256, row.threads = threads, row.check = check;
  const std::vector<double> g =
      report.add_problem(row, {"polyfuse", "libxsmm_loops", "openblas_1024x1024x256"}, seconds, op.flops());
  std::printf("  config %d %2d thr  polyfuse %7.1f  libxsmm loops %7.1f (%5.2fx)  openblas 1024x1024x256 %7.1f (%5.2fx)%s\n",
              which, threads, g[0], g[1], g[0] / g[1], g[2], g[0] / g[2],
              check == "ok" ? "" : ("  WARNING: " + check).c_str());
}

// Section 4: square GEMM C += A B, column-major. All cores: columns split over threads, as
// the CPU target's block loops do, and like them on one thread below the parallel threshold
// (schedule/cpu_plan.h: kCpuMinParallelFlops; OpenBLAS keeps small GEMMs on one thread too).
void bench_gemm(int64_t s, int threads, const Budget& budget, Report& report) {
  const auto a = random_floats(size_t(s * s), 7), b = random_floats(size_t(s * s), 8);
  std::vector<float> c(size_t(s * s), 0.f), c_blas = c;
  const int team = 2 * s * s * s < polyfuse::kCpuMinParallelFlops ? 1 : threads;  // threads of polyfuse's loop
  const int64_t width = (s + team - 1) / team;
  std::vector<Brgemm> kernels;
  BrgemmConfig cfg;
  cfg.m = s, cfg.k = s, cfg.n = width;
  kernels.emplace_back(cfg);
  const int64_t last = s - (team - 1) * width;
  if (last != width && last > 0) {
    cfg.n = last;
    kernels.emplace_back(cfg);
  }
  auto ours = [&] {
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
    for (int t = 0; t < team; ++t) {
      const int64_t j0 = t * width;
      if (j0 >= s) continue;
      const Brgemm& kernel = (j0 + width <= s) ? kernels[0] : kernels.back();
      kernel(a.data(), b.data() + j0 * s, c.data() + j0 * s, s, s, s);
    }
  };
  const double flops = 2.0 * double(s) * double(s) * double(s);
  // Check once: C = A B from zero for both.
  ours();
  openblas_sgemm(1, s, s, s, a.data(), s, b.data(), s, c_blas.data(), s, 0.f);
  const double diff = max_diff(c, c_blas);
  std::vector<Timed> runs = {
      ours, Timed([&] { openblas_sgemm(threads, s, s, s, a.data(), s, b.data(), s, c_blas.data(), s, 1.f); },
                  openblas_settle(threads))};
  std::vector<std::string> names = {"polyfuse", "openblas"};
  const XsmmBrgemm xsmm(s, s, s, s, s, s, 0, 0);
  if (s <= 256 && xsmm.ok()) {
    runs.emplace_back([&] { xsmm(a.data(), b.data(), c.data(), 1); });
    names.push_back("libxsmm");
  }
  Row row;
  row.section = "gemm", row.problem = shape_text(s, s, s);
  row.m = row.n = row.k = s, row.threads = threads;
  if (diff > 1e-3 * double(s)) row.check = "differs from openblas";
  const std::vector<double> g = report.add_problem(row, names, median_seconds(runs, budget), flops);
  char xsmm_text[32] = "      -";
  if (g.size() > 2) std::snprintf(xsmm_text, sizeof xsmm_text, "%7.1f", g[2]);
  std::printf("  %5lld %2d thr  polyfuse %7.1f  openblas %7.1f (%5.2fx)  libxsmm %s  %s%s%s\n", (long long)s, threads,
              g[0], g[1], g[0] / g[1], xsmm_text, kernels[0].packs() ? "packed" : "direct",
              team < threads ? " (one thread: below the parallel threshold)" : "",
              row.check == "ok" ? "" : "  WARNING: differs from openblas");
}

// "1.23" (two decimals), or "n/a" for no values.
std::string geomean_text(const std::vector<double>& values) {
  if (values.empty()) return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", geomean(values));
  return text;
}

// The geomean of polyfuse's speedup over `implementation` in the sections whose name starts
// with `section` at `threads`, over rows whose M is at least `min_m`; "n/a" for none.
std::string summary_ratio(const Report& report, const std::string& section, const std::string& implementation,
                          int threads, int64_t min_m = 0) {
  std::vector<double> ratios;
  for (const Row& r : report.rows())
    if (r.section.rfind(section, 0) == 0 && r.implementation == implementation && r.threads == threads &&
        r.m >= min_m && r.ratio > 0)
      ratios.push_back(r.ratio);
  return geomean_text(ratios);
}

// "1,2" -> {1, 2}; empty on a malformed list or a count < 1.
std::vector<int> parse_thread_list(const std::string& text) {
  std::vector<int> counts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    char* end = nullptr;
    const long value = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || value < 1 || value > 4096) return {};
    counts.push_back(int(value));
    start = comma + 1;
  }
  return counts;
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "polyfuse-bench-cpu: error: %s\nusage: polyfuse-bench-cpu [--quick] [--conv] [--only S[,S...]] [--threads N[,N...]] [--csv FILE]\n",
               message.c_str());
  return 2;
}

}  // namespace
}  // namespace polyfuse::bench

int main(int argc, char** argv) {
  using namespace polyfuse::bench;
  bool quick = false, conv_only = false;
  std::string csv_path;
  std::set<std::string> only;  // --only: the sections to run (empty: all)
  const std::set<std::string> sections = {"brgemm", "tensor_op", "gemm", "fused", "batched", "rows", "conv"};
  const int all = thread_count();
  std::vector<int> thread_counts = {1};
  if (all > 1) thread_counts.push_back(all);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      quick = true;
    } else if (arg == "--conv") {
      conv_only = true;  // only the convolutions (conv.h)
    } else if (arg == "--help" || arg == "-h") {
      std::printf("usage: polyfuse-bench-cpu [--quick] [--conv] [--only S[,S...]] [--threads N[,N...]] [--csv FILE]\n"
                  "  --quick            fewer sizes and shorter samples\n"
                  "  --conv             only the convolutions against oneDNN\n"
                  "  --only LIST        only these sections: brgemm, tensor_op, gemm, fused, batched, rows, conv\n"
                  "  --threads LIST     thread counts to measure at (default: 1,%d)\n"
                  "  --csv FILE         one line per problem x implementation x thread count\n",
                  all);
      return 0;
    } else if (arg == "--threads" || arg == "--csv" || arg == "--only") {
      if (i + 1 >= argc) return usage_error(arg + " needs a value");
      const std::string value = argv[++i];
      if (arg == "--only") {
        std::stringstream list(value);
        for (std::string section; std::getline(list, section, ',');) {
          if (!sections.count(section))
            return usage_error("--only '" + section + "': the sections are brgemm, tensor_op, gemm, fused, batched, rows, conv");
          only.insert(section);
        }
      } else if (arg == "--csv") {
        csv_path = value;
      } else {
        thread_counts = parse_thread_list(value);
        if (thread_counts.empty())
          return usage_error("--threads '" + value + "': expected a comma-separated list of thread counts >= 1");
      }
    } else {
      return usage_error("unknown option '" + arg + "'");
    }
  }
  std::ofstream csv_out;  // opened now, so a path that cannot be written stops the run before it starts
  if (!csv_path.empty()) {
    csv_out.open(csv_path);
    if (!csv_out) return usage_error("--csv '" + csv_path + "': cannot open it for writing");
  }
  Budget budget;
  budget.seconds_per_batch = quick ? 0.02 : 0.05;
  budget.batches = quick ? 7 : 15;
  RunInfo info{cpu_model(), utc_now(), polyfuse::cpu::to_string(polyfuse::cpu::best_isa()), pinning_text()};

  std::string counts_text;
  for (int t : thread_counts) counts_text += (counts_text.empty() ? "" : ",") + std::to_string(t);
  std::printf("polyfuse-bench-cpu%s: %s, %s, threads %s (of %d), pinning %s, kernels/cpu isa %s%s, load average %s\n",
              quick ? " --quick" : "", info.cpu.c_str(), info.date.c_str(), counts_text.c_str(), all,
              info.pinning.c_str(), info.isa.c_str(), polyfuse::cpu::cpu_has_avx512_bf16() ? " (+bf16)" : "",
              load_average().c_str());
  std::printf("GFLOP/s, fp32, hot caches; each row's implementations interleaved, %d samples of >= %.0f ms each, "
              "median; ratios are polyfuse / baseline\n",
              budget.batches, 1e3 * budget.seconds_per_batch);

  if (conv_only) {
    const std::string conv = bench_conv_section(quick, thread_counts, budget);
    std::printf("summary:%s\n", conv.c_str());
    return 0;
  }
  std::printf("FMA peak (measured on each thread's CPU time; again whenever a kernel looks faster):\n");
  const char* peak_isa = "";
  const double peak_seconds = quick ? 0.3 : 1.0;
  std::map<int, std::unique_ptr<PeakGauge>> peaks;
  for (int t : thread_counts) {
    peaks[t] = std::make_unique<PeakGauge>([t, peak_seconds, &peak_isa] { return fma_peak_gflops(t, peak_seconds, &peak_isa); },
                                           std::to_string(t) + " thread" + (t == 1 ? "" : "s"));
    std::printf("  %2d thr  %7.1f  (%s)\n", t, peaks[t]->gflops(), peak_isa);
  }

  const auto runs = [&only](const std::string& section) { return only.empty() || only.count(section) > 0; };
  Report report;
  if (runs("brgemm")) std::printf("BRGEMM (seed shapes, column-major, batch strides m*k and k*n):\n");
  for (int threads : thread_counts)
    for (auto [m, n, k, batch] : {std::array<int64_t, 4>{32, 32, 32, 1}, {32, 32, 32, 8}, {16, 6, 64, 1}})
      if (runs("brgemm")) bench_brgemm(m, n, k, batch, threads, budget, report);

  if (runs("tensor_op")) std::printf("Tensor operations (seed §5.3 configurations 1-3):\n");
  for (int threads : thread_counts)
    for (int which : {1, 2, 3})
      if (runs("tensor_op")) bench_tensor_operation(which, threads, budget, report);

  if (runs("gemm")) std::printf("GEMM sweep (square, C += A B):\n");
  const std::vector<int64_t> sizes = quick ? std::vector<int64_t>{64, 256, 512, 1024, 2048}
                                           : std::vector<int64_t>{64, 128, 256, 384, 512, 768, 1024, 1536, 2048};
  for (int threads : thread_counts)
    for (int64_t s : sizes) {
      if (!runs("gemm")) break;
      Budget big = budget;
      if (s >= 1024) big.batches = quick ? 3 : 5, big.seconds_per_batch = 0;  // one call is a sample
      bench_gemm(s, threads, big, report);
    }

  if (runs("fused")) std::printf("Fused GEMM epilogues (f32, row-major, square; polyfuse's CPU target, oneDNN matmul with post-ops, "
              "OpenBLAS sgemm + a separate pass):\n");
  const std::vector<int64_t> fused_sizes = quick ? std::vector<int64_t>{256, 1024} : std::vector<int64_t>{256, 512, 1024, 2048};
  for (int threads : thread_counts)
    for (FusedEpilogue epilogue : {FusedEpilogue::bias_relu, FusedEpilogue::bias_gelu, FusedEpilogue::residual})
      for (int64_t s : fused_sizes)
        if (runs("fused")) bench_fused(epilogue, s, threads, budget, report);

  if (runs("batched")) std::printf("Batched GEMM (examples/batched_gemm.tc in f32, row-major; polyfuse's CPU target, oneDNN batched matmul, "
              "OpenBLAS sgemm looped over the batch):\n");
  const std::vector<std::array<int64_t, 2>> batched = quick ? std::vector<std::array<int64_t, 2>>{{16, 256}, {4, 512}}
                                                           : std::vector<std::array<int64_t, 2>>{{64, 128}, {16, 256}, {4, 512}, {2, 1024}};
  for (int threads : thread_counts)
    for (auto [batch, s] : batched)
      if (runs("batched")) bench_batched(batch, s, threads, budget, report);

  if (runs("rows"))
    std::printf("Row reductions and matmul chains (f32, row-major; polyfuse's CPU target, oneDNN's softmax, layer "
                "normalisation and matmul primitives; rows at a nominal 5 or 8 operations an element):\n");
  const std::vector<int64_t> row_counts = quick ? std::vector<int64_t>{1024} : std::vector<int64_t>{256, 1024, 4096};
  const std::vector<int64_t> chain_sizes = quick ? std::vector<int64_t>{512} : std::vector<int64_t>{256, 512, 1024};
  for (int threads : thread_counts) {
    if (!runs("rows")) break;
    for (RowOperation operation : {RowOperation::softmax, RowOperation::layernorm})
      for (int64_t m : row_counts) bench_rows(operation, m, 1024, threads, budget, report);
    for (int64_t s : chain_sizes) bench_gemm_softmax(s, threads, budget, report);
    for (int64_t s : chain_sizes) bench_mlp(512, s, threads, budget, report);
  }

  const std::string conv = runs("conv") ? bench_conv_section(quick, thread_counts, budget) : "";

  // Every fraction against the peak as it stands at the end of the run: none above 1.
  report.settle_peak_fractions([&](int t) { return peaks.count(t) ? peaks[t].get() : nullptr; });
  std::printf("FMA peak at the end of the run:");
  for (int t : thread_counts) std::printf("  %d thr %7.1f", t, peaks[t]->gflops());
  std::printf("\n");
  for (int t : thread_counts)
    for (const std::string& warning : peaks[t]->warnings()) std::printf("WARNING: %s\n", warning.c_str());
  if (csv_out.is_open()) {
    csv_out << report.csv(info);
    if (!csv_out.flush()) {
      std::fprintf(stderr, "polyfuse-bench-cpu: error: cannot write --csv '%s'\n", csv_path.c_str());
      return 1;
    }
    std::printf("csv: %s (%zu rows)\n", csv_path.c_str(), report.rows().size());
  }
  std::vector<double> fractions;
  for (const Row& r : report.rows())
    if (r.section == "brgemm" && r.implementation == "polyfuse" && r.threads == 1) fractions.push_back(r.peak_fraction);
  std::printf("summary: brgemm_vs_libxsmm=%s gemm_vs_openblas=%s peak_fraction=%s",
              summary_ratio(report, "brgemm", "libxsmm", 1).c_str(),
              summary_ratio(report, "gemm", "openblas", 1, 256).c_str(), geomean_text(fractions).c_str());
  for (int t : thread_counts)
    std::printf(" fused_vs_onednn_%dthr=%s fused_vs_openblas_pass_%dthr=%s batched_vs_onednn_%dthr=%s"
                " batched_vs_openblas_loop_%dthr=%s rows_vs_onednn_%dthr=%s gemm_softmax_vs_onednn_%dthr=%s"
                " mlp_vs_onednn_%dthr=%s",
                t, summary_ratio(report, "fused_", "onednn", t).c_str(), t,
                summary_ratio(report, "fused_", "openblas+pass", t).c_str(), t,
                summary_ratio(report, "batched_gemm", "onednn", t).c_str(), t,
                summary_ratio(report, "batched_gemm", "openblas_loop", t).c_str(), t,
                summary_ratio(report, "rows_", "onednn", t).c_str(), t,
                summary_ratio(report, "gemm_softmax", "onednn", t).c_str(), t,
                summary_ratio(report, "mlp", "onednn", t).c_str());
  std::printf("%s\n", conv.c_str());
  return 0;
}
