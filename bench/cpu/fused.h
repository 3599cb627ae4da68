// Section 5 of polyfuse-bench-cpu: GEMMs with fused epilogues, f32, row-major, square —
// polyfuse's CPU target (the .tc program built as `polyfuse run --target=cpu --threads N`
// builds it) next to oneDNN's matmul with post-ops and to OpenBLAS sgemm followed by a
// separate OpenMP pass over the output.
#pragma once

#include <cstdint>
#include <vector>

#include "baseline_onednn.h"
#include "measure.h"
#include "report.h"

namespace polyfuse::bench {

// Times the three side by side for s x s x s on `threads` threads (section
// "fused_<epilogue>"), checks polyfuse's D against oneDNN's, prints one line and adds
// the rows to `report`.
void bench_fused(FusedEpilogue epilogue, int64_t s, int threads, const Budget& budget, Report& report);

}  // namespace polyfuse::bench
