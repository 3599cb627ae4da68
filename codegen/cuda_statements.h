// The CUDA text of each statement of a GPU kernel's AST (the names are those of
// schedule/copies.h and the contracted matmul statement), as calls to the kernels/cuda
// helpers, plus the argument rewrites that give the matmul statement its fragment
// coordinates.
#pragma once

#include <string>
#include <vector>

#include "codegen/cuda_kernel_layout.h"
#include "codegen/statement_rewrites.h"
#include "frontend/program.h"
#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// What the statement printer reads.
struct CudaStatementContext {
  const Program& program;
  const KernelPlan& plan;
  const GpuOptions& options;
  const CudaKernelLayout& layout;
};

// The matmul statement S(m, n, k) becomes S(i, j): its accumulator fragment within the
// warp tile, i = (m mod WM) / MM, j = (n mod WN) / MN. An epilogue statement E(b.., m, n)
// becomes E(i, j, b.., m, n): its fragment and the index of the fragment's first element.
StatementRewrites cuda_statement_rewrites(const KernelPlan& plan, const GpuOptions& options);

// Adds the tile bounds of every statement that copies, loads or stores a tile of a tensor
// (their calls get a pf::Check argument: tile_bounds.h).
void add_tile_bounds(StatementRewrites& rewrites, const Program& program, const KernelPlan& plan,
                     const CudaKernelLayout& layout, const GpuOptions& options);

// The CUDA lines of statement `name` with C argument expressions `args`; a k-slice's fragment
// loads and MMAs on fragment set `fragment_set` of two (a_frag[set], codegen/fragment_pipeline.h)
// when it is not "".
std::string print_cuda_statement(const CudaStatementContext& context, const std::string& name,
                                 const std::vector<std::string>& args, const std::string& fragment_set = "");

// The ring's wait `name` (a wait_shared statement) under the fragment pipeline
// (c_ast_printer.h's FragmentPipeline::wait): a landed prologue (schedule/copies.h) maps the
// k-step's stage only `if (guard)` (unless ""), and `after_loop` behind a barrier first.
std::string print_ring_wait(const CudaStatementContext& context, const std::string& name,
                            const std::vector<std::string>& args, const std::string& guard, bool after_loop);

}  // namespace polyfuse
