// The default block tile of a mma.sync kernel whose output is narrower than it: a matmul of
// N = 23 columns (or attention's e·V at D = 64) in 128 x 128 blocks computes, copies and
// stores 128 columns of which 23 (64) exist, and launches as many blocks as a 128-wide output
// would; a block as wide as the output (the extent rounded up to a power of two, at least 32)
// does the same work without the padding.
//
// The rule applies when the user chose neither block nor warp tile nor split-K nor the
// macro-MMA (the default 128x128x32 with 64x64 warps) and every statement of the kernel has
// its rows (M) or columns (N) bound and fewer than the block's: those block extents shrink to
// the power of two at or above the widest statement's, at least 32; the warp tile is then
// min(64, block) in each. `--emit=config` prints the rule when it applied.
#pragma once

#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"
#include "schedule/prologue_tile.h"

namespace polyfuse {

// The options of the mma.sync kernel of `plan` with the rule's block tile, or unchanged (and
// an empty `why`).
PrologueTile output_block_tile(const KernelPlan& plan, const GpuOptions& options);

}  // namespace polyfuse
