// The launch grid of a generated kernel: block (z, y, x) owns the output tile (batch z,
// rows BM*y.., columns BN*x..) of every statement, so the grid spans the largest output
// of the kernel's statements along each axis (statements with smaller outputs, e.g. the
// two matmuls of a matmul's gradient, have no instances in the blocks past their ends).
// With unbound sizes every statement must have the same output extents
// (schedule/plan_from_program.h refuses other plans with a located error).
//
// The AST of the kernel is generated under a context that names the range of each
// blockIdx_*; an instance outside that range is silently never run. So every generated
// kernel is checked: each statement's whole domain must fall in blocks of the grid that
// the context allows (check_grid_covers_statements). A violation is a compiler bug.
#pragma once

#include <isl/cpp.h>

#include <string>
#include <vector>

#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// The extents the grid tiles (a size or a literal): batch (tile 1), rows (tile BM) and
// columns (tile BN); each the largest of the statements' extents.
struct KernelGrid {
  std::vector<Size> batch_extents;  // at most one: blockIdx.z
  Size rows, cols;                  // blockIdx.y, blockIdx.x
  int block_m = 0, block_n = 0;
};

// The grid of `plan` under `options`.
KernelGrid kernel_grid(const KernelPlan& plan, const GpuOptions& options);

// isl constraints (joined by "and") on the block parameters (gpu_mapping.h's
// block_parameters) that hold exactly for the blocks of `grid`:
// "0 <= blockIdx_y and 128*blockIdx_y < M and ...".
std::string grid_constraints(const KernelGrid& grid);

// Throws InternalError, naming the statement and a block it needs, unless every instance of
// every statement of `plan` lies in a block of `grid` allowed by `context` (the AST's
// context: a parameter set over the sizes, blockIdx_* and warp_*).
void check_grid_covers_statements(const KernelPlan& plan, const KernelGrid& grid, const isl::set& context);

}  // namespace polyfuse
