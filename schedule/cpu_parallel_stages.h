// Which stages of a CPU plan open an OpenMP region: a stage's work in flops (CpuStage::flops)
// against CpuScheduleOptions::min_parallel_flops. A stage below it runs on the calling thread,
// as OpenBLAS runs small GEMMs: on a loaded machine a 2-thread region can wait milliseconds at
// its barrier for a descheduled thread, far longer than a small stage takes.
#pragma once

#include <cstdint>

#include "schedule/cpu_plan.h"

namespace polyfuse {

// 2 M N K per matmul (K times its reduce-batch or the convolution's taps), one per element per
// operation of each pointwise statement, all times the batch.
std::int64_t stage_flops(const CpuStage& stage);

// Sets every stage's flops and whether it runs in parallel (flops >= min_parallel_flops).
void mark_parallel_stages(CpuPlan& plan, std::int64_t min_parallel_flops);

}  // namespace polyfuse
