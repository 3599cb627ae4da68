// The launch grid of a generated kernel: block (z, y, x) owns the output tile (batch z,
// rows BM*y.., columns BN*x..) of every statement, so the grid spans the largest output
// of the kernel's statements along each axis (statements with smaller outputs, e.g. the
// two matmuls of a matmul's gradient, have no instances in the blocks past their ends).
// With unbound sizes every statement must have the same output extents
// (schedule/plan_from_program.h refuses other plans with a located error).
//
// The blocks walk the tiles in grouped order (kernels/cuda's pf::grouped_tile): block
// (x, y) of the launch computes the tile pf::grouped_tile(x, y, cols, rows, group) names,
// so "blockIdx_y" and "blockIdx_x" below stand for that tile's row and column; group 1 is
// the launch's own order.
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
  std::vector<Size> batch_extents;  // blockIdx.z (several: linearised, the last fastest)
  Size rows, cols;                  // blockIdx.y, blockIdx.x
  int block_m = 0, block_n = 0;
  int group = 1;                    // tile rows per group of the block order
};

// The default group of the block order: 8 when the grid has at least 8 tile rows or an
// unbound row count (pf::grouped_tile shortens the last group, so any grid is walked
// whole), else 1: a grid of a few tile rows is read from L2 whole in either order.
int default_tile_group(const Size& rows, int block_m);

// The grid of `plan` under `options` (its group: options.group, else the default).
KernelGrid kernel_grid(const KernelPlan& plan, const GpuOptions& options);

// The kernel preamble's declarations of the batch indices of a block when several batch
// dimensions share blockIdx.z, the last one fastest ("const int batch_1 = blockIdx.z % H;");
// "" for one or none (blockIdx.z itself).
std::string batch_index_declarations(const KernelGrid& grid);

// isl constraints (joined by "and") on the block parameters (gpu_mapping.h's
// block_parameters) that hold exactly for the blocks of `grid`:
// "0 <= blockIdx_y and 128*blockIdx_y < M and ...".
std::string grid_constraints(const KernelGrid& grid);

// Throws InternalError, naming the statement and a block it needs, unless every instance of
// every statement of `plan` lies in a block of `grid` allowed by `context` (the AST's
// context: a parameter set over the sizes, blockIdx_* and warp_*).
void check_grid_covers_statements(const KernelPlan& plan, const KernelGrid& grid, const isl::set& context);

}  // namespace polyfuse
