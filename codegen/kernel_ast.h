// The isl AST of one kernel: the mapped schedule tree (schedule/gpu_pipeline.h) turned
// into loops by isl's AST generator, under a context that states what is known when
// the kernel runs — the sizes (bound or symbolic, any value ≥ 1) and the ranges of the
// blockIdx_* and warp_* parameters.
//
// Full tiles keep the fast path: the AST is generated twice, once for the blocks whose
// tile lies wholly inside every tensor (full blocks: isl knows it from the context, so
// their loops have constant bounds and their copies and stores check no bounds) and once
// for the blocks at the edges (partial tiles: guarded loops, zero-filling copies, masked
// stores). The kernel branches once, on blockIdx, between the two. In the full blocks'
// AST the k-steps whose tiles lie inside K are isolated as well (full_ksteps.h).
#pragma once

#include <isl/cpp.h>

#include <optional>
#include <string>

#include "codegen/statement_rewrites.h"
#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// The context set of the kernel's AST: size bindings, sizes ≥ 1, the blocks of the grid
// (kernel_grid.h), 0 <= warp_* < warps per block.
isl::set kernel_context(const KernelPlan& plan, const GpuOptions& options, isl::set params);

// The parameter values (blockIdx_*, sizes) for which the block's tile of every statement
// lies inside the tensors: BM * blockIdx_y + BM <= M and BN * blockIdx_x + BN <= N.
isl::set full_blocks(const KernelPlan& plan, const GpuOptions& options, isl::set params);

struct KernelAst {
  isl::set context;                      // the parameter values both bodies assume (kernel_context)
  std::optional<isl::ast_node> full;     // the full blocks' body; none when no block is full
  std::optional<isl::ast_node> edge;     // the edge blocks' body; none when every block is full
  std::optional<isl::ast_expr> is_full;  // with both: true in a full block
};

// Generates the ASTs of `schedule` (the output of build_gpu_schedule), with the
// arguments of the statements in `rewrites` replaced (statement_rewrites.h).
KernelAst build_kernel_ast(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& options,
                           const StatementRewrites& rewrites = {});

// The ASTs as isl prints them (C), the two bodies under one if/else.
std::string kernel_ast_text(const KernelAst& ast);

}  // namespace polyfuse
