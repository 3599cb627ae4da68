// Timing for polyfuse-bench-cpu. Implementations that are compared are timed side by side:
// their samples interleave (A B A B ..., never all of A then all of B), so a change in the
// machine's load during the run touches each of them alike, and each one's time is the
// median of its samples (one preempted sample moves a median little, a best or a mean a lot).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace polyfuse::bench {

struct Budget {
  double seconds_per_batch = 0.03;  // one sample repeats the call for at least this long
  int batches = 9;                  // samples per implementation; the median counts
};

// One implementation to time: `run` is one call; `settle`, when set, runs untimed after
// each of its samples (e.g. openblas_park_threads, so OpenBLAS's spinning workers do not
// take the cores from the next implementation's sample).
struct Timed {
  template <class F>
    requires std::is_invocable_v<F&>
  Timed(F f) : run(std::move(f)) {}  // NOLINT: implicit, so a list of lambdas is a list of Timed
  Timed(std::function<void()> f, std::function<void()> after) : run(std::move(f)), settle(std::move(after)) {}
  std::function<void()> run;
  std::function<void()> settle;
};

// Seconds per call of each of `runs`, interleaved: one warm-up call of each, then
// `budget.batches` rounds, each timing one sample of every run in turn. A sample that
// follows a settle starts with one untimed call (the settle left the cores idle). Element
// i is the median of run i's samples (wall clock). The clock is read once per group of
// calls that took at least 20 us in the warm-up (each run's own count), not after every call.
std::vector<double> median_seconds(const std::vector<Timed>& runs, const Budget& budget);

// `flops` / seconds, in GFLOP/s (0 for a time of 0).
double gflops_of(double flops, double seconds);

// One run alone: gflops_of(flops, median_seconds({run}, budget)[0]).
double gflops(const std::function<void()>& run, double flops, const Budget& budget);

// `count` floats uniform in [-1, 1) from `seed`.
std::vector<float> random_floats(size_t count, unsigned seed);

// Number of OpenMP threads ("all cores").
int thread_count();

// How OpenMP threads are placed, for the report: "OMP_PROC_BIND=close OMP_PLACES=cores", or
// "none (OMP_PROC_BIND unset: the OS moves threads)".
std::string pinning_text();

}  // namespace polyfuse::bench
