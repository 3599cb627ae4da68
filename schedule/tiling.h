// Tiling passes of the GPU path (paper §IV-B, IV-C, IV-E). Each takes the tree the
// previous pass produced and returns a new one; golden dumps in tests/golden/schedule/.
//
// After block_tile:
//   mark kernel
//     mark block
//       band [b.., floor(m/BM), floor(n/BN)]          → blockIdx (z,) y, x
//         (sequence of filters when several statements)
//           matmul:    mark kstep
//                        band [floor(k/BK)]            sequential k-steps
//                          band [m mod BM, n mod BN, k mod BK]
//           pointwise: band [m mod BM, n mod BN]
// After warp_tile, every point band [m mod BM, n mod BN, ..] becomes
//   mark warp
//     band [floor((m mod BM)/WM), floor((n mod BN)/WN)] → warp_y, warp_x
//       band [m mod WM, n mod WN, ..]
// split_k (p > 1) adds a member floor((k mod BK)/(BK/p)) → warp_k to the matmul's warp
// band and leaves k mod (BK/p) in its point band. strip_mine_k then splits the matmul's
// point band into band [floor((k mod WK)/MK)] over band [m mod WM, n mod WN, k mod MK]:
// the warp-level MMA as an outer product over k-slices of one macro-MMA each (§IV-C).
#pragma once

#include <isl/cpp.h>

#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// Tiles the outer band by options.block (batch dims by 1) and strip-mines every matmul's
// reduction band by block.k. Expects the tree of initial_schedule.
isl::schedule block_tile(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& options);

// Tiles every statement's point band by options.warp (m, n). Expects block_tile's tree.
isl::schedule warp_tile(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& options);

// p-way intra-block split-K (options.split_k = p): the block's k-strip is shared by p
// warps. Identity for p = 1. Expects warp_tile's tree.
isl::schedule split_k(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& options);

// Strip-mines each matmul's warp-level k by the macro-MMA k. Expects split_k's tree.
isl::schedule strip_mine_k(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& options);

// The subtree of `statement` right below the block band (InternalError if absent).
isl::schedule_node statement_root(const isl::schedule& schedule, const std::string& statement);

// The innermost band of `statement`'s subtree (the point band a tiling pass left).
isl::schedule_node_band innermost_band(const isl::schedule& schedule, const std::string& statement);

// The first mark named `name` at or below `node` along first children and through the
// filter of `statement` in sequences; InternalError if there is none.
isl::schedule_node find_statement_mark(const isl::schedule_node& node, const std::string& statement,
                                       std::string_view name);

}  // namespace polyfuse
