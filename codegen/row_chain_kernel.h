// The body of a plan's row-chain kernel (schedule/row_chain.h) as readable CUDA: one warp
// (or one block of 8 warps) owns a row; thread t of the row handles the terms
// (t + threads * j) * vector + v. Each loop over the row (RowChain::steps) reads what it needs
// of the row in 128-bit vectors (pf::ldg_floats) or term by term; the rows the chain keeps stay
// in per-thread register arrays x_T[] (or, when they do not fit, are re-read and their element
// values recomputed by each loop); each reduction is combined across the row's threads after
// its loop by `__shfl_xor_sync` butterflies (and, for a block, through shared memory), so that
// every thread of the row holds it for the statements after it. Only the kernel's outputs are
// stored (element outputs by the thread of the term, row outputs by the row's first thread).
#pragma once

#include <cstdint>
#include <string>

#include "frontend/program.h"
#include "schedule/row_chain.h"

namespace polyfuse {

struct RowChainBody {
  std::string text;            // the kernel's statements, inside its braces
  std::int64_t blocks = 1;     // grid (256 threads a block)
  int shared_bytes = 0;        // dynamic shared memory (the warps' partial results of a block's rows)
  std::string what;            // the kernel's header line: "row chain, one warp per row (...)"
};

// The body for `kernel_program` (program_plan.h's kernel_program of a row-chain kernel, every
// size bound), whose tensor parameters are named by memory_kernel_tensor_id.
RowChainBody row_chain_kernel_body(const Program& kernel_program);

// The same chain (`chain`: row_chain_of of `program`, one warp a row) on a wgmma consumer
// warpgroup's staged 64 x `bn` accumulators of the matmul result `staged`
// (pf::sm90::stage_wg_acc at `staging`): warp w of the warpgroup takes its rows w, w + 4, ...,
// (`row0` + r of the matrix, a C expression; `batch` the batch element's linear index, or "0"),
// each reading the staged values of its row where the chain reads `staged` (the tile's column
// n0, 0: the tile spans the row) and every other tensor from global memory. Lines for the consumer's tile loop (indent 4); the kernel's tensors
// keep their names.
std::string staged_row_chain(const Program& program, const RowChain& chain, const std::string& staged, int bn,
                             const std::string& row0, const std::string& batch);

}  // namespace polyfuse
