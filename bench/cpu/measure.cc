#include "measure.h"

#include <algorithm>
#include <chrono>
#include <random>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace polyfuse::bench {

double gflops(const std::function<void()>& run, double flops, const Budget& budget) {
  using clock = std::chrono::steady_clock;
  run();
  double best = 0;
  for (int b = 0; b < budget.batches; ++b) {
    const auto start = clock::now();
    long calls = 0;
    double elapsed = 0;
    do {
      run();
      ++calls;
      elapsed = std::chrono::duration<double>(clock::now() - start).count();
    } while (elapsed < budget.seconds_per_batch);
    best = std::max(best, flops * double(calls) / elapsed * 1e-9);
  }
  return best;
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

}  // namespace polyfuse::bench
