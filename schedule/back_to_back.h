// Back-to-back matmuls (issue 21 item 2): a plan's two tensor-core kernels where the first
// writes, through its epilogue, exactly the 16-bit A operand of the second — an MLP's
// `A(m, h) = f16(relu(X·W1 + b1))` then `Y = A·W2 + b2` — become ONE kernel when the first
// matmul's row panel fits on chip (its N = H at most max_hidden_columns): each block computes
// block_m rows of the first matmul over all H columns, runs its epilogue on the accumulators,
// keeps A in shared memory in the layout the second matmul's A fragments are loaded from, and
// loops over the second matmul's N tiles reading A from there (codegen/back_to_back_kernel.h).
// A never reaches global memory. When the chain does not fit (or is not of this form) the plan
// keeps two kernels and the first kernel's note says why.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frontend/program.h"
#include "schedule/kernel_plan.h"
#include "schedule/program_plan.h"

namespace polyfuse {

// The widest hidden row panel one block keeps: 64 rows x 256 columns of f32 accumulators are
// 64 registers a thread over 256 threads, and the f16 tile 32 KiB of shared memory.
inline constexpr std::int64_t max_hidden_columns = 256;

// The tiles of a back-to-back kernel, from the sizes (every one bound).
struct BackToBackTiles {
  std::int64_t m = 0, k = 0, h = 0, n = 0;  // X is m x k, W1 k x h, W2 h x n
  int block_m = 64;       // rows of a block, in both matmuls
  int block_k = 32;       // k-step of both k-loops (over K, then over the hidden columns)
  int hidden_cols = 0;    // H padded for the swizzled tile and the warps: 32, or a multiple of 64
  int block_n = 0;        // the second matmul's N tile (64 or 128), looped over inside the block
  int warps_m = 2, warps_n = 4;  // 8 warps: 2 along the rows, 4 along the columns, in both matmuls
  std::int64_t blocks() const { return (m + block_m - 1) / block_m; }
  std::int64_t n_tiles() const { return (n + block_n - 1) / block_n; }
};

// One back-to-back kernel: the two halves as programs of their own (program_plan.h's
// kernel_program of the two-kernel plan: the first writes A, the second reads it), their
// KernelPlans (one matmul each), A's name and the tiles.
struct BackToBack {
  Program first, second;
  KernelPlan first_plan, second_plan;
  std::string hidden;  // A: the first half's only output, the second matmul's A operand
  BackToBackTiles tiles;
};

// Whether the fused matmul kernels with statements `first` and `second` (consecutive in the
// plan) are a chain — the second's first matmul reads as A a tensor the first writes — and if
// so "" when they run as one back-to-back kernel, else why not. nullopt: not a chain.
std::optional<std::string> why_not_back_to_back(const Program& program, const std::vector<std::string>& first,
                                                const std::vector<std::string>& second);

// Merges every pair of consecutive fused matmul kernels of `plan` that run as one back-to-back
// kernel (PlannedKernelKind::back_to_back, its note saying how); a chain that does not gets a
// note on its first kernel saying why. Before the plan's names and temporaries are set.
void merge_back_to_back(const Program& program, ProgramPlan& plan);

// The halves and tiles of the back-to-back kernel with statements `statements` (its kind's).
BackToBack back_to_back_of(const Program& program, const std::vector<std::string>& statements);

}  // namespace polyfuse
