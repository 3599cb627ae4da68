#include "codegen/kernel_grid.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sstream>

#include "frontend/diagnostics.h"
#include "schedule/gpu_mapping.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {

namespace {

// The larger of two extents of one grid axis: bound ones compare by value; a size name
// must equal the other extent (plan_gpu_kernel refuses other plans).
Size larger_extent(const Size& a, const Size& b, const KernelPlan& plan) {
  if (a == b) return a;
  PF_INTERNAL_CHECK(!a.is_symbolic() && !b.is_symbolic(), "kernel " + plan.name + ": statements tile unequal symbolic extents " +
                                                              a.to_string() + " and " + b.to_string());
  return a.value >= b.value ? a : b;
}

}  // namespace

KernelGrid kernel_grid(const KernelPlan& plan, const GpuOptions& options) {
  PF_INTERNAL_CHECK(!plan.matmuls.empty(), "a kernel grid needs a matmul");
  KernelGrid grid;
  const StatementDims& first = plan.matmuls.front().dims;
  grid.batch_extents = first.batch_extents;
  grid.rows = first.m_extent;
  grid.cols = first.n_extent;
  for (const StatementDims& dims : plan.all_statements()) {
    for (size_t i = 0; i < grid.batch_extents.size(); ++i)
      grid.batch_extents[i] = larger_extent(grid.batch_extents[i], dims.batch_extents[i], plan);
    grid.rows = larger_extent(grid.rows, dims.m_extent, plan);
    grid.cols = larger_extent(grid.cols, dims.n_extent, plan);
  }
  grid.block_m = options.block.m;
  grid.block_n = options.block.n;
  grid.group = options.group.value_or(default_tile_group(grid.rows, grid.block_m));
  return grid;
}

std::string batch_index_declarations(const KernelGrid& grid) {
  const std::vector<Size>& extents = grid.batch_extents;
  if (extents.size() < 2) return "";
  std::vector<std::string> names;
  for (const Size& e : extents) names.push_back(e.to_string());
  std::string text = fmt::format("  // the batch indices of this block: blockIdx.z walks {}, the last fastest\n",
                                 fmt::join(names, " x "));
  const std::vector<std::string> blocks = block_parameters(static_cast<int>(extents.size()));
  for (size_t i = 0; i < extents.size(); ++i) {
    std::vector<std::string> inner;
    std::int64_t bound = 1;
    bool all_bound = true;
    for (size_t j = i + 1; j < extents.size(); ++j) {
      inner.push_back(extents[j].to_string());
      all_bound = all_bound && !extents[j].is_symbolic();
      bound *= extents[j].is_symbolic() ? 1 : extents[j].value;
    }
    std::string index = "blockIdx.z";
    if (!inner.empty())
      index += all_bound ? fmt::format(" / {}", bound)
               : inner.size() == 1 ? " / " + inner[0]
                                   : fmt::format(" / ({})", fmt::join(inner, " * "));
    if (i > 0) index = fmt::format("{} % {}", inner.empty() ? index : "(" + index + ")", names[i]);
    text += fmt::format("  const int {} = {};\n", blocks[i], index);
  }
  return text;
}

int default_tile_group(const Size& rows, int block_m) {
  constexpr int group = 8;
  if (rows.is_symbolic()) return group;
  return (rows.value + block_m - 1) / block_m >= group ? group : 1;
}

std::string grid_constraints(const KernelGrid& grid) {
  std::vector<std::string> blocks = block_parameters(static_cast<int>(grid.batch_extents.size()));
  const std::string& y = blocks[blocks.size() - 2];
  const std::string& x = blocks[blocks.size() - 1];
  std::vector<std::string> constraints;
  for (size_t i = 0; i < grid.batch_extents.size(); ++i)
    constraints.push_back(fmt::format("0 <= {} < {}", blocks[i], grid.batch_extents[i].to_string()));
  constraints.push_back(fmt::format("0 <= {0} and {1}*{0} < {2}", y, grid.block_m, grid.rows.to_string()));
  constraints.push_back(fmt::format("0 <= {0} and {1}*{0} < {2}", x, grid.block_n, grid.cols.to_string()));
  return fmt::format("{}", fmt::join(constraints, " and "));
}

namespace {

// The sizes (non-literal extents) the grid's constraints name.
std::vector<std::string> grid_sizes(const KernelGrid& grid) {
  std::vector<std::string> sizes;
  for (const Size& e : grid.batch_extents)
    if (e.is_symbolic()) sizes.push_back(e.symbol);
  for (const Size& e : {grid.rows, grid.cols})
    if (e.is_symbolic()) sizes.push_back(e.symbol);
  return sizes;
}

isl::set without_params(isl::set set, const std::vector<std::string>& names) {
  for (const std::string& name : names)
    set = set.project_out_param(name);  // isl leaves a set without that parameter as it is
  return set;
}

// The parameter values (sizes, blockIdx_*) of the blocks that hold an instance of `dims`:
// block (z, y, x) holds S[b, m, n, ..] when z = b, y = floor(m / BM), x = floor(n / BN).
isl::set blocks_needed(const KernelPlan& plan, const KernelGrid& grid, const StatementDims& dims) {
  std::vector<std::string> blocks = block_parameters(plan.batch_rank());
  std::vector<std::string> owner;
  for (size_t i = 0; i < dims.batch.size(); ++i) owner.push_back(fmt::format("{} = {}", blocks[i], dims.batch[i]));
  owner.push_back(fmt::format("{} = floor({}/{})", blocks[blocks.size() - 2], dims.m, grid.block_m));
  owner.push_back(fmt::format("{} = floor({}/{})", blocks[blocks.size() - 1], dims.n, grid.block_n));
  isl::set owned(plan.domain.ctx(), fmt::format("[{}] -> {{ {} : {} }}", fmt::join(blocks, ", "), dims.tuple_text(),
                                                fmt::join(owner, " and ")));
  return owned.intersect(plan.domain.extract_set(owned.space())).params();
}

}  // namespace

void check_grid_covers_statements(const KernelPlan& plan, const KernelGrid& grid, const isl::set& context) {
  std::vector<std::string> blocks = block_parameters(plan.batch_rank());
  isl::set in_context = without_params(context, warp_parameters());
  isl::set assumptions = without_params(in_context, blocks);  // sizes >= 1, bindings
  std::vector<std::string> params = grid_sizes(grid);
  params.insert(params.end(), blocks.begin(), blocks.end());
  isl::set in_grid(context.ctx(), fmt::format("[{}] -> {{ : {} }}", fmt::join(params, ", "), grid_constraints(grid)));
  isl::set allowed = in_context.intersect(in_grid);
  for (const StatementDims& dims : plan.all_statements()) {
    isl::set needed = blocks_needed(plan, grid, dims).intersect(assumptions);
    isl::set missed = needed.subtract(allowed);
    if (missed.is_empty()) continue;
    std::ostringstream example;
    example << missed.sample_point();
    throw InternalError(fmt::format("kernel {}: statement {} has instances in blocks that the launch grid ({} x {} tiles "
                                      "of {}x{}) or the kernel's context does not run, e.g. {}",
                                      plan.name, dims.statement, grid.rows.to_string(), grid.cols.to_string(), grid.block_m, grid.block_n,
                                      example.str()));
  }
}

}  // namespace polyfuse
