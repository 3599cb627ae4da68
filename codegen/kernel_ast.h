// The isl AST of one kernel: the mapped schedule tree (schedule/gpu_pipeline.h) turned
// into loops by isl's AST generator, under a context that states what is known when
// the kernel runs — the sizes (bound or symbolic, any value ≥ 1: isl guards the partial
// tiles at the edges, whose copies zero-fill and whose stores are masked) and the ranges
// of the blockIdx_* and warp_* parameters.
#pragma once

#include <isl/cpp.h>


#include "codegen/statement_rewrites.h"
#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// The context set of the kernel's AST: size bindings, sizes ≥ 1, 0 <= blockIdx_* <
// grid, 0 <= warp_* < warps per block.
isl::set kernel_context(const KernelPlan& plan, const GpuOptions& options, isl::set params);

// Generates the AST of `schedule` (the output of build_gpu_schedule), with the
// arguments of the statements in `rewrites` replaced (statement_rewrites.h).
isl::ast_node build_kernel_ast(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& options,
                               const StatementRewrites& rewrites = {});

}  // namespace polyfuse
