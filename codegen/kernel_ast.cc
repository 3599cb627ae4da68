#include "codegen/kernel_ast.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "codegen/full_ksteps.h"
#include "codegen/kernel_grid.h"
#include "frontend/diagnostics.h"
#include "schedule/gpu_mapping.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {

isl::set kernel_context(const KernelPlan& plan, const GpuOptions& o, isl::set params) {
  std::vector<std::string> constraints;
  std::set<std::string> names;
  auto size = [&](const Size& extent) {
    if (extent.is_symbolic() && names.insert(extent.symbol).second) constraints.push_back(extent.symbol + " >= 1");
  };
  std::vector<std::string> blocks = block_parameters(plan.batch_rank());
  for (const StatementDims& dims : plan.all_statements()) {
    for (const Size& e : dims.batch_extents) size(e);
    size(dims.m_extent);
    size(dims.n_extent);
    if (dims.k_extent) size(*dims.k_extent);
  }
  constraints.push_back(grid_constraints(kernel_grid(plan, o)));
  constraints.push_back(fmt::format("0 <= warp_y < {}", o.block.m / o.warp.m));
  constraints.push_back(fmt::format("0 <= warp_x < {}", o.block.n / o.warp.n));
  constraints.push_back(fmt::format("0 <= warp_k < {}", o.split_k));
  std::vector<std::string> all(names.begin(), names.end());
  all.insert(all.end(), blocks.begin(), blocks.end());
  for (const std::string& w : warp_parameters()) all.push_back(w);
  isl::set context(params.ctx(), fmt::format("[{}] -> {{ : {} }}", fmt::join(all, ", "), fmt::join(constraints, " and ")));
  return context.intersect_params(params);
}

isl::set full_blocks(const KernelPlan& plan, const GpuOptions& o, isl::set params) {
  std::vector<std::string> constraints;
  std::set<std::string> names;
  std::vector<std::string> blocks = block_parameters(plan.batch_rank());
  const std::string& by = blocks[blocks.size() - 2];
  const std::string& bx = blocks[blocks.size() - 1];
  for (const StatementDims& dims : plan.all_statements()) {
    for (const Size& e : {dims.m_extent, dims.n_extent})
      if (e.is_symbolic()) names.insert(e.symbol);
    constraints.push_back(fmt::format("{0}*{1} + {0} <= {2}", o.block.m, by, dims.m_extent.to_string()));
    constraints.push_back(fmt::format("{0}*{1} + {0} <= {2}", o.block.n, bx, dims.n_extent.to_string()));
  }
  std::vector<std::string> all(names.begin(), names.end());
  all.push_back(by);
  all.push_back(bx);
  isl::set full(params.ctx(), fmt::format("[{}] -> {{ : {} }}", fmt::join(all, ", "), fmt::join(constraints, " and ")));
  return full.intersect_params(params);
}

namespace {

isl::ast_node generate(const isl::schedule& schedule, const KernelPlan& plan, const isl::set& context,
                       const StatementRewrites& rewrites) {
  isl::ast_build build = isl::ast_build::from_context(context);
  if (!rewrites.empty()) build = with_statement_rewrites(build, rewrites, context);
  try {
    return build.node_from(schedule);
  } catch (const isl::exception& error) {
    throw InternalError(fmt::format("AST generation for kernel {} failed in isl: {}", plan.name, error.what()));
  }
}

}  // namespace

KernelAst build_kernel_ast(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& options,
                           const StatementRewrites& rewrites) {
  isl::set params = isl::set::universe(schedule.domain().space().params());
  isl::set context = kernel_context(plan, options, params);
  isl::set full = full_blocks(plan, options, context.params()).intersect(context);
  isl::set edge = context.subtract(full);
  KernelAst ast;
  ast.context = context;
  if (!full.is_empty()) ast.full = generate(isolate_full_ksteps(schedule, plan, options), plan, full.coalesce(), rewrites);
  // The edge blocks' AST assumes only the general context: "not full" is a disjunction
  // (rows or columns cut), which would split simple expressions into piecewise ones.
  if (!edge.is_empty()) ast.edge = generate(schedule, plan, context, rewrites);
  if (ast.full && ast.edge) ast.is_full = isl::ast_build::from_context(context).expr_from(full);
  return ast;
}

std::string kernel_ast_text(const KernelAst& ast) {
  if (!ast.is_full) return (ast.full ? ast.full : ast.edge)->to_C_str();
  return "if (" + ast.is_full->to_C_str() + ") {\n  // full blocks\n" + ast.full->to_C_str() + "} else {\n  // edge blocks\n" +
         ast.edge->to_C_str() + "}\n";
}

}  // namespace polyfuse
