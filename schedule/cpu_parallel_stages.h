// Which stages of a CPU plan open an OpenMP region: a stage's work in flops (CpuStage::flops)
// against CpuScheduleOptions::min_parallel_flops. A stage below it runs on the calling thread,
// as OpenBLAS runs small GEMMs: on a loaded machine a 2-thread region can wait milliseconds at
// its barrier for a descheduled thread, far longer than a small stage takes.
#pragma once

#include <cstdint>

#include "schedule/cpu_plan.h"

namespace polyfuse {

// The operations of an expression: its nodes that are neither reads nor literals.
std::int64_t expr_operation_count(const Expr& expr);

// 2 M N K per matmul (K times its reduce-batch or the convolution's taps), one per element per
// operation of each pointwise statement, plus kCpuFlopsPerElement per element for a stage
// without a matmul, all times the batch.
std::int64_t stage_flops(const CpuStage& stage);

// Sets every stage's flops and whether it runs in parallel (flops >= min_parallel_flops). A
// parallel blocked stage with fewer output blocks than the plan's threads (when set: with 0,
// OpenMP's default, the count is not known here and the generated code stays the same on every
// machine) has its column block nc, then its row block mc, halved (down to 32) until every
// thread gets a block: a 196 x 256 GEMM (a ResNet res4 1x1 layer at batch 1)
// is one 256 x 1024 block, which one thread ran while the other waited. Then the row blocks of
// a stage with several get one size, and their count a multiple of the threads where that takes
// a few more (balance_row_blocks: M = 392 as 196 + 196, not 256 + 136). Blocks split the
// output only, so the results are the same bits (each element's sum over k is unchanged).
// A copy stage (a padded input, a packed filter) counts kCpuFlopsPerElement per element, and
// below the threshold still runs on the threads when a later parallel stage's matmul reads what
// it writes and it has kCpuMinParallelCopyElements or more; a loop
// nest its CpuLoopNest::flops, and it stays on one thread where CpuLoopNest::serial says why.
void mark_parallel_stages(CpuPlan& plan, std::int64_t min_parallel_flops);

// Whether the entry function packs B of `stage`'s matmul once per call (kernels/cpu's
// Brgemm::pack_b) and every row block reads those panels (the GotoBLAS order): one plain matmul
// (not a convolution) with rows and columns, B following no batch index, every column block nc
// wide, and more than one row block, or a constant B (CpuMatmul::b_constant: kept between calls).
bool cpu_stage_shares_b(const CpuStage& stage);

// The output blocks of `stage`: the batch times ceil(M / mc) times ceil(N / nc).
std::int64_t stage_blocks(const CpuStage& stage);

}  // namespace polyfuse
