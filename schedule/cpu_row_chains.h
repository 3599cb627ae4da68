// Row chains of a CPU plan: softmax, a layer norm and the like run row block by row block
// through all of their stages, not stage by stage over whole tensors.
//
// A def without a matmul in its rows (examples/softmax.tc) is a plan of loop nests (the max, the
// sum) and blocked pointwise stages (exp, the division), each a pass over every row: at 1024 x
// 1024 f32 four passes over 4 MiB tensors, each from memory (0.36x oneDNN's softmax on one core).
// Stages i..j form a chain when each one
//   - is a loop nest whose outer loop may split over the threads (CpuLoopNest::serial empty), or
//     a blocked stage with no matmul and no batch loop (its rows are its m, or its n when it has
//     no m: a statement writing a value per row), and
//   - runs over the same row extent M, and
//   - touches every tensor some stage of the chain writes only at its own row: such a tensor is
//     written with its first subscript the stage's row index (a loop nest's outer index, a blocked
//     stage's m) and read so by every stage of the chain.
// Then running the stages block by block (rows r0..r1 through stage i, then i+1, ...) computes
// what running them one after the other does: a stage reads, of what the chain writes, only
// rows of its own block, which the stages before it wrote in this block (the same bits: every
// row computes as before). Reads of other tensors (inputs, what stages before the chain wrote)
// may be anywhere. The blocks are independent, so they run on the threads.
//
// The block: as many rows as fit half of L2 with a row of every tensor the chain touches by
// rows (CpuRowChain::row_bytes), and at most M / (4 x threads) rows (the threads get 4 blocks
// each; as for 8 threads when the plan's count is unset, so the code is the same on every machine);
// then evened out: the fewest rows that make a count of blocks that is a multiple of the threads,
// so that each thread runs as many blocks.
// A temporary that only the chain's stages touch, and that the first of them to touch it writes
// whole, is a chain temporary (CpuStorage::chain_local, CpuRowChain::temporaries): each thread
// keeps one block of its rows, indexed from the block's first row (softmax's e, a layer norm's d),
// so it never goes to memory.
#pragma once

#include "frontend/program.h"
#include "schedule/cpu_plan.h"

namespace polyfuse {

// Finds the chains of `plan` (of `program`), longest first from the first stage, and records
// them (CpuPlan::row_chains, CpuStage::row_chain); a blocked stage of a chain gets the chain's
// row block as its mc (nc when its rows are its n). After mark_parallel_stages and fuse_epilogues.
void form_row_chains(CpuPlan& plan, const Program& program, const CpuScheduleOptions& options);

}  // namespace polyfuse
