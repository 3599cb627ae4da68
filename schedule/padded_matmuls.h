// A matmul computes whole block tiles: its macro-MMAs cover the block's rows and columns
// and the k-steps' full depth also where M, N or K end inside a tile. The operand tiles are
// zero-filled past the tensors (the copies check the tensors' bounds, and a prologue maps
// only the elements inside them), so the extra macro-MMAs add zeros to accumulators that
// the masked stores never write out — what CUTLASS does with its predicated iterators.
// Every warp then runs its tile's full, unrolled macro-MMA sequence with constant bounds:
// with the exact domain, the last k-step's k-slice loop and the edge blocks' MMA loops got
// run-time bounds and a warp guard, and the default 128x128 kernel spilled registers
// (ptxas: 255 registers and 8–16 bytes of spills on sm_80/sm_90 for M=1000 N=300 K=100).
#pragma once

#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// `plan` with each matmul's domain extended to whole block tiles — 0 <= m < BM * ceil(M / BM),
// likewise n by BN and k by BK — and its A and B accesses on that domain. Batch dimensions,
// epilogue statements and the results' accesses are unchanged.
KernelPlan pad_matmuls_to_block_tiles(const KernelPlan& plan, const GpuOptions& options);

}  // namespace polyfuse
