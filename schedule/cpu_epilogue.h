// The last step of the CPU plan for fused matmuls: a stage's pointwise statement that finishes
// the matmul's block, `W = u((C + v) + R)` (each of u, v and R optional, either operand order
// of each +), becomes the BRGEMM's epilogue
// (CpuMatmul::epilogue, kernels/cpu's BrgemmEpilogue), so the block is finished in registers
// and stored once, to W, instead of stored as C and read back by a pass:
//   - C is the stage's only matmul's result, block local (read by nothing else), and the
//     statement is the stage's first pointwise one; no later statement reads C; or the
//     statement updates C in place, `C = u(C + v)` with C f32 (TC's form of an epilogue, its
//     updates composed by schedule/cpu_in_place.h): the BRGEMM then stores C's new value, which
//     later statements may read;
//   - W is f32 (the BRGEMM stores f32) and neither the matmul's A nor B;
//   - v is a row (indexed by n) or column (by m) of the block: an f32 tensor contiguous along
//     that index, not block local; R an f32 block read at the element written, neither C nor W
//     (W's block holds partial sums before R is read); u is a one-argument function, or max(x, 0),
//     which is relu on the CPU (bit for bit).
// Anything else stays a pass after the BRGEMM (codegen/cpu_block.cc), e.g. a scale, a sum in
// another order ((C + R) + v), an f16 output. The results are the same bits either way: the BRGEMM's epilogue
// computes what the pass computes from the stored block.
#pragma once

#include "schedule/cpu_plan.h"

namespace polyfuse {

void fuse_epilogues(CpuPlan& plan);

}  // namespace polyfuse
