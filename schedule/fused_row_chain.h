// A row chain (schedule/row_chain.h: softmax, layer norm, RMS norm, ...) fused into the
// epilogue of the matmul kernel before it (issue 20 item 3): when one block tile spans the
// whole row of the matmul's output, the chain's reductions run on the accumulator fragments
// (per-thread partials, shuffles across the quad of lanes that shares a row, shared memory
// across the warps that share it; codegen/fragment_row_chain.h) and the kernel stores only
// the chain's results: the matmul's output never goes to global memory.
//
// A def `head; chain` fuses when
//   - `head` is one fused matmul kernel (plan_gpu_kernel takes it),
//   - `chain` is one row chain whose rows are the matmul output's batch indices and rows (a
//     block runs one batch element, blockIdx.z) and whose columns its columns, reducing with
//     `op=!` (zero-initialised), reading the head's results at the element, and
//   - the row has at most `fused_row_limit` columns (the widest block tile of the mma.sync
//     kernel, 256 for 16-bit operands).
// The kernel then takes block N = the row rounded up to a power of two (at least 32) when the
// user did not fix the block tile, and runs the mma.sync main loop; on sm_90a the TMA + wgmma
// kernel takes it where it can (codegen/hopper_row_chain.h: its own tile spans the row).
//
//   if (std::optional<FusedRowChain> fused = fused_row_chain(program)) { ... head_program(program) ... }
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "frontend/program.h"
#include "schedule/gpu_options.h"
#include "schedule/row_chain.h"

namespace polyfuse {

struct ProgramPlan;

// The widest row a block tile spans (block N of the mma.sync kernel with 16-bit operands).
constexpr std::int64_t fused_row_limit = 256;

struct FusedRowChain {
  std::vector<std::string> head;   // ids: the matmul kernel's statements, program order
  std::vector<std::string> chain;  // ids: the row chain run on its accumulator fragments
  RowChain rows;                   // the chain's rows, columns and steps
  std::int64_t row_length = 0;     // the columns of a row
};

// The split of `head` + `chain` (statement ids of `program`, every size bound) into a fused
// kernel, or why it does not fuse (the rule it breaks, e.g. "the row of 300 columns does not
// fit the block tile of 256").
std::variant<FusedRowChain, std::string> fused_row_chain_of(const Program& program, const std::vector<std::string>& head,
                                                            const std::vector<std::string>& chain);

// The fused chain of the whole of `program` (head: the statements before its first reduction
// that is not a matmul), when it has one that fuses.
std::optional<FusedRowChain> fused_row_chain(const Program& program);

// `program` without the statements of `fused.chain` (every tensor kept): the matmul kernel the
// GPU passes schedule.
Program head_program(const Program& program, const FusedRowChain& fused);

// `program` without the row chain fused into its matmul kernel's epilogue when it has one (the
// statements the GPU passes schedule), else `program`.
Program matmul_part(const Program& program);

// `options` with a block tile that spans the row of `fused` (block N the row rounded up to a
// power of two, at least 32; 64 rows of 32-row warps) when the block tile is the default one
// (128x128x32: the user did not choose it, or chose the default); UserError when another block
// tile does not span the row, and for split-K or m8n8k4 macro-MMAs.
GpuOptions options_spanning_row(const GpuOptions& options, const FusedRowChain& fused);

// Merges each fused matmul kernel of `plan` with the row-chain kernel right after it where
// they fuse (the chain's statements join the matmul kernel; its partition says so), and
// records in the cut why the others do not.
void fuse_row_chains_into_matmul_kernels(const Program& program, ProgramPlan& plan);

}  // namespace polyfuse
