// The registers per thread of an mma.sync kernel, modelled from the code the emitter writes:
// what the warp-tile choice (codegen/kernel_fit.h's fitted_layout) compares with the
// registers a thread may have. The main loop and the epilogue are modelled apart, and the
// kernel needs the larger of the two, not their sum: the epilogue runs after the last k-step,
// so its operands are never live beside the main loop's fragments and copy addresses.
//
//   main loop = accumulator tiles + max(fragment sets x fragments of one k-slice, prologue
//               staging) + 2 per 16-byte chunk a thread copies per k-step + 16 (+ 16 for
//               the edge blocks); with software-pipelined fragments (codegen/fragment_pipeline.h)
//               2 x fragments + staging in place of the max: the set loaded under the last
//               k-slice's MMAs is live while the next k-step's prologue stages its tiles
//               (ptxas: relu_gemm 254 registers with 64x64 warps)
//   epilogue  = every register tile + (values of a fragment + 2) per epilogue operand read + 16
//
// Fragments of one k-slice: 4 registers per A and 2 per B fragment of m16n8k16 (8 and 4
// with f32 operands, the TF32 fragments, and 4 more per B fragment with 3xTF32, its small
// part; 4 and 4 for the m8n8k4 macro-MMAs), B's once per matmul of a k-loop that shares A. Fragment sets: the k-slices whose fragments are live at
// once — 2 for 16-bit m16n8k16 (ptxas loads the next k-slice's fragments under the current
// one's MMAs), 1 for the TF32 fragments (converted in place, loaded slice by slice), 3 for
// the m8n8k4 macro-MMAs (ptxas hoists their loads deeper: 154 registers for a 64x32 warp
// tile), at most the k-slices of a k-step. For m16n8k16, 1 when 2 do not fit the limit
// (under a tighter limit ptxas loads each k-slice's fragments just before its MMAs: 128
// registers for swiglu's 32x32 warp tiles at 512 threads, no spill); not for the m8n8k4
// macro-MMAs, whose 64x64 warp tile with an epilogue spills (60 bytes, sm_80). The prologue's staging tiles are live while
// the copies run, before the MMAs; each copied chunk keeps a global address (2 registers), its
// shared offset the first chunk's plus a constant where the swizzle allows (pf_block_copy.cuh's
// ChunkAddresses); a k-loop that continues another's accumulator (codegen/added_matmuls.h)
// keeps its addresses live through the first k-loop (ptxas: 240 for add_gemms' 64x64 warps). The 16 are indices, tile bases, the loop counter and stage offsets; the
// edge blocks' body (a size unbound or not a multiple of the block tile) takes 16 more for
// its bounds and predicates (ptxas: up to 248 against 234 for the 64x64 GEMM).
// Calibrated against ptxas -v (nvcc 13, sm_80 and sm_90) on every example; the test
// codegen.nvcc_*_no_spills compares the two (tests/codegen/check_generated_kernel.cmake).
#pragma once

#include <string>
#include <vector>

#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

struct RegisterModel {
  // The main loop.
  int accumulators = 0;     // the matmuls' f32 accumulator tiles
  int fragments = 0;        // A and B fragments of one k-slice (the largest k-loop's)
  int fragment_sets = 1;    // k-slices whose fragments are live at once
  bool pipelined = false;   // two sets loaded across k-steps too (codegen/fragment_pipeline.h): one
                            // set is live at the k-step's top, beside the prologue staging
  int staging = 0;          // prologue staging tiles and their operands' (before the MMAs)
  int copy_addresses = 0;   // of the 16-byte chunks a thread copies per k-step
  int edge = 0;             // the edge blocks' bounds and predicates (16 when M, N or K may end inside a tile)
  // The epilogue.
  int tiles = 0;            // every register tile: accumulators and epilogue results
  int epilogue_operands = 0;  // values and addresses of the operands one fragment's epilogue reads

  static constexpr int base = 16;  // indices, tile bases, loop counter, stage offsets

  int main_loop() const;
  int epilogue() const;
  // What the kernel needs: the larger of the two.
  int total() const;
  // "main loop 232 = 128 accumulators + 2 x 32 fragments + 24 copy addresses + 16; epilogue 150 = ..."
  std::string to_string() const;
};

// The registers a thread of a block of `threads` may use on `arch`: the architecture's limit,
// or fewer when the block's threads would not all get it (ptxas under __launch_bounds__).
int register_limit(Arch arch, int threads);

}  // namespace polyfuse
