// Timing for polyfuse-bench-cpu: best GFLOP/s of a callable over repeated batches.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace polyfuse::bench {

struct Budget {
  double seconds_per_batch = 0.2;  // each batch repeats the call at least this long
  int batches = 3;                 // the best batch counts (hot caches, least noise)
};

// Calls `run` (which does `flops` floating-point operations) repeatedly and returns the
// best GFLOP/s over the budget's batches. One warm-up call comes first.
double gflops(const std::function<void()>& run, double flops, const Budget& budget);

// `count` floats uniform in [-1, 1) from `seed`.
std::vector<float> random_floats(size_t count, unsigned seed);

// Number of OpenMP threads ("all cores").
int thread_count();

}  // namespace polyfuse::bench
