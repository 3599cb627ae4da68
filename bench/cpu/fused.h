// Section 5 of polyfuse-bench-cpu: GEMMs with fused epilogues, f32, row-major, square —
// polyfuse's CPU target (the .tc program built as `polyfuse run --target=cpu --threads N`
// builds it) next to oneDNN's matmul with post-ops and to OpenBLAS sgemm followed by a
// separate OpenMP pass over the output.
#pragma once

#include <cstdint>
#include <vector>

#include "baseline_onednn.h"
#include "measure.h"

namespace polyfuse::bench {

// The ratios of one (epilogue, size, threads): polyfuse / baseline GFLOP/s.
struct FusedRatios {
  int threads = 1;
  double vs_onednn = 0;
  double vs_openblas_pass = 0;
};

// Times the three for s x s x s on `threads` threads, checks polyfuse's D against
// oneDNN's, prints one line and returns the ratios.
FusedRatios bench_fused(FusedEpilogue epilogue, int64_t s, int threads, const Budget& budget);

}  // namespace polyfuse::bench
