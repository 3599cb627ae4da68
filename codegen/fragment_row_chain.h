// The CUDA text of a row chain fused into the matmul kernel's epilogue
// (schedule/fused_row_chain.h), printed after the kernel's AST, on the m16n8k16 accumulator
// fragments of the warp tiles: lane l holds rows l / 4 and l / 4 + 8 of each 16x8 fragment,
// columns 2 (l % 4) and 2 (l % 4) + 1.
//
// Each step of the chain (schedule/row_chain.h's RowStep) becomes:
//   - a loop over the thread's fragment values (unrolled: the tiles stay in registers) that
//     computes its element statements into register tiles (in place over a tile no later
//     statement reads) and its reductions into per-row partials, skipping the columns past
//     the row (max with -inf, sum with 0: they never enter the statistics); then each
//     reduction combined across the quad of lanes that shares a row (__shfl_xor_sync 1, 2)
//     and across the warps that share it (one partial per warp and row in shared memory past
//     the accumulator scratch, between two barriers, combined in warp order so every thread
//     gets the same value);
//   - or, for a row statement, its value per row the thread holds.
// Element outputs are stored once, by pf::store_accumulators, when computed; row outputs by
// lane 0 of each quad of the row's first warp.
#pragma once

#include <string>

#include "codegen/cuda_statements.h"
#include "schedule/fused_row_chain.h"

namespace polyfuse {

struct FragmentRowChainText {
  std::string text;       // statements of the kernel body, indented by 2
  int shared_bytes = 0;   // the dynamic shared memory the kernel needs with it
};

// The chain `fused.chain` on the accumulator tiles of `context` (its program is the whole
// def, its plan the head's); `block_row` is the block's tile row ("tile.row" or "blockIdx.y").
FragmentRowChainText fragment_row_chain(const CudaStatementContext& context, const FusedRowChain& fused,
                                        const std::string& block_row);

}  // namespace polyfuse
