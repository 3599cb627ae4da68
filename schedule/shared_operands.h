// Shared operand tiles: matmuls of one kernel that read the same A tile — SwiGLU's
// `G +=! X(m, k) * Wg(k, n)` and `U +=! X(m, k) * Wu(k, n)` — run in one k-loop that copies
// the tile to shared memory once per k-step and loads its fragments once per k-slice,
// feeding every accumulator (issue 21).
#pragma once

#include <string>
#include <vector>

#include "schedule/kernel_plan.h"

namespace polyfuse {

// Why matmul `next` cannot share the A tile of the matmuls in `group` (their k-loop), or ""
// when it can: the same A tensor read at the same indices with the same layout and
// prologue, the same output tile grid and k range, and no member reading or writing what
// another writes.
std::string why_not_shared_a(const KernelPlan& plan, const MatmulGroup& group, const MatmulStage& next);

// Marks each matmul that can share the A tile of the matmuls before it
// (MatmulStage::shares_a_with_previous).
void share_operand_tiles(KernelPlan& plan);

// For --emit=plan: "S0 and S1 run in one k-loop that loads X's tiles once per k-step", for
// each k-loop of several matmuls.
std::vector<std::string> shared_operand_loops(const KernelPlan& plan);

}  // namespace polyfuse
