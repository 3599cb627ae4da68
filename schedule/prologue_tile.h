// The default block tile of a mma.sync kernel whose k-loop applies a prologue to the landed
// tile of one operand (schedule/copies.h's landed_prologue; issue 19 item 5's rule).
//
// Each k-step, every thread maps its share of that operand's tile in shared memory: block.m x
// block.k / threads elements for A. With 128x128x32 blocks of four 64x64 warps that is 4 chunks
// of 8 (16 f16x2 operations plus their shared loads and stores) against each warp's 64 MMAs;
// with 128x256x32 blocks of eight 64x64 warps (CUTLASS 2.x's 128x256 tile) the A tile is the
// same, the threads twice as many, and each thread maps 2 chunks for the same 64 MMAs. So a
// prologue on A takes 128x256x32 and one on B 256x128x32, when:
//   * the user chose neither block nor warp tile nor split-K (the default 128x128x32, 64x64);
//   * the other extent (N for A, M for B) is unbound or at least 256 (one 256-wide block, not
//     two 128-wide ones half idle);
// else the default stays. `--emit=config` prints the rule when it applied.
#pragma once

#include <string>

#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

struct PrologueTile {
  GpuOptions options;  // `options` with the rule's block tile, or unchanged
  std::string why;     // "" when the rule did not apply
};

// The options of the mma.sync kernel of `plan` (one whose main loop is mma.sync).
PrologueTile prologue_block_tile(const KernelPlan& plan, const GpuOptions& options);

}  // namespace polyfuse
