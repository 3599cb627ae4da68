// Section 6 of polyfuse-bench-cpu: batched GEMM, f32, row-major — examples/batched_gemm.tc
// (C(b, m, n) +=! A(b, m, k) * W(b, k, n)) in f32 through polyfuse's CPU target, next to
// oneDNN's batched matmul (3-d tensors) and to OpenBLAS sgemm looped over the batch.
#pragma once

#include <cstdint>

#include "measure.h"
#include "report.h"

namespace polyfuse::bench {

// Times the three side by side for `batch` x (s x s x s) on `threads` threads (section
// "batched_gemm"), checks polyfuse's C against oneDNN's, prints one line and adds the
// rows to `report`.
void bench_batched(int64_t batch, int64_t s, int threads, const Budget& budget, Report& report);

}  // namespace polyfuse::bench
