#include "measure.h"

#include "bench/gpu/stats.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace polyfuse::bench {

std::vector<double> median_seconds(const std::vector<Timed>& runs, const Budget& budget) {
  using clock = std::chrono::steady_clock;
  for (const Timed& t : runs) {
    t.run();
    if (t.settle) t.settle();
  }
  const int samples = std::max(1, budget.batches);
  std::vector<std::vector<double>> seconds(runs.size());
  // A settle leaves the cores idle (OpenBLAS's park sleeps ~0.1 s); the first call after it
  // ran at half speed on two threads here (2-vCPU KVM: the idle vCPU wakes slowly), which
  // cost the implementation sampled next ~30% of a 20 ms sample. That one gets an untimed
  // call first.
  bool idled = runs.back().settle != nullptr;  // the warm-up's last settle
  // Calls between two reads of the clock: enough for kClockSpan. A read costs ~25 ns on a KVM
  // guest (steady_clock through the vDSO); read after every call, it added 25 ns to each of a
  // 16 x 6 x 64 BRGEMM's 80 ns (and to each of libxsmm's), so small kernels' rates were low.
  constexpr double kClockSpan = 20e-6;
  std::vector<long> per_read(runs.size(), 1);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto start = clock::now();
    long calls = 0;
    double elapsed = 0;
    do {
      runs[i].run();
      ++calls;
      elapsed = std::chrono::duration<double>(clock::now() - start).count();
    } while (elapsed < kClockSpan);
    per_read[i] = calls;
    if (runs[i].settle) runs[i].settle();
    idled = runs[i].settle != nullptr;
  }
  for (int sample = 0; sample < samples; ++sample)
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (idled) runs[i].run();
      idled = runs[i].settle != nullptr;
      const auto start = clock::now();
      long calls = 0;
      double elapsed = 0;
      do {
        for (long c = 0; c < per_read[i]; ++c) runs[i].run();
        calls += per_read[i];
        elapsed = std::chrono::duration<double>(clock::now() - start).count();
      } while (elapsed < budget.seconds_per_batch);
      seconds[i].push_back(elapsed / double(calls));
      if (runs[i].settle) runs[i].settle();
    }
  std::vector<double> medians;
  for (std::vector<double>& s : seconds) medians.push_back(median(std::move(s)));
  return medians;
}

double gflops_of(double flops, double seconds) { return seconds > 0 ? flops / seconds * 1e-9 : 0; }

double gflops(const std::function<void()>& run, double flops, const Budget& budget) {
  return gflops_of(flops, median_seconds({run}, budget)[0]);
}

std::vector<float> random_floats(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(count);
  for (float& x : v) x = dist(rng);
  return v;
}

int thread_count() {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

std::string pinning_text() {
  const char* bind = std::getenv("OMP_PROC_BIND");
  const char* places = std::getenv("OMP_PLACES");
  if (!bind || std::string(bind) == "false")
    return std::string("none (OMP_PROC_BIND ") + (bind ? "false" : "unset") + ": the OS places threads)";
  return std::string("OMP_PROC_BIND=") + bind + " OMP_PLACES=" + (places ? places : "(unset: threads)");
}

}  // namespace polyfuse::bench
