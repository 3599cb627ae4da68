#include "schedule/padded_matmuls.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "frontend/diagnostics.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {

namespace {

// The access of a matmul operand, `access`'s tensor read at (batch.., row, col), on the
// statement's instances in `domain`. Built from the indices rather than from `access`,
// whose constraints bound k by K (and, with extents of 1, fix indices to 0).
isl::map operand_access(const isl::map& access, const StatementDims& d, const std::string& row, const std::string& col,
                        const isl::union_set& domain) {
  const int batch = static_cast<int>(access.range_tuple_dim()) - 2;
  PF_INTERNAL_CHECK(batch >= 0 && batch <= static_cast<int>(d.batch.size()), "operand access of rank < 2");
  std::vector<std::string> indices(d.batch.begin(), d.batch.begin() + batch);
  indices.push_back(row);
  indices.push_back(col);
  isl::map function(access.ctx(), fmt::format("{{ {} -> {}[{}] }}", d.tuple_text(), access.range_tuple_id().name(),
                                               fmt::join(indices, ", ")));
  return isl::union_map(function).intersect_domain(domain).as_map();
}

}  // namespace

KernelPlan pad_matmuls_to_block_tiles(const KernelPlan& plan, const GpuOptions& options) {
  KernelPlan padded = plan;
  for (const MatmulStage& mm : plan.matmuls) {
    const StatementDims& d = mm.dims;
    std::set<std::string> sizes;
    std::vector<std::string> bounds;
    auto range = [&](const std::string& index, const Size& extent) {
      if (extent.is_symbolic()) sizes.insert(extent.symbol);
      bounds.push_back(fmt::format("0 <= {} < {}", index, extent.to_string()));
    };
    // The existential's name: none of the statement's indices (a matmul over `q` is common).
    std::set<std::string> names(d.batch.begin(), d.batch.end());
    names.insert({d.m, d.n, *d.k});
    std::string q = "q";
    while (names.count(q)) q += "_";
    // index below the first multiple of `tile` that is >= extent.
    auto padded_range = [&](const std::string& index, const Size& extent, int tile) {
      if (extent.is_symbolic()) sizes.insert(extent.symbol);
      bounds.push_back(fmt::format("exists ({3} : 0 <= {0} < {1} {3} and {2} <= {1} {3} < {2} + {1})", index, tile,
                                   extent.to_string(), q));
    };
    for (size_t i = 0; i < d.batch.size(); ++i) range(d.batch[i], d.batch_extents[i]);
    padded_range(d.m, d.m_extent, options.block.m);
    padded_range(d.n, d.n_extent, options.block.n);
    padded_range(*d.k, *d.k_extent, options.block.k);
    isl::union_set box(plan.domain.ctx(), fmt::format("[{}] -> {{ {} : {} }}", fmt::join(sizes, ", "), d.tuple_text(),
                                                      fmt::join(bounds, " and ")));
    padded.domain = padded.domain.subtract(isl::union_set(plan.domain.ctx(), "{ " + d.tuple_text() + " }")).unite(box);
  }
  // The operands' accesses reach past K too (their copies zero-fill there).
  for (MatmulStage& mm : padded.matmuls) {
    const bool a_row = mm.a_layout == OperandLayout::row_major, b_row = mm.b_layout == OperandLayout::row_major;
    mm.a_access = operand_access(mm.a_access, mm.dims, a_row ? mm.dims.m : *mm.dims.k, a_row ? *mm.dims.k : mm.dims.m,
                                 padded.domain);
    mm.b_access = operand_access(mm.b_access, mm.dims, b_row ? *mm.dims.k : mm.dims.n, b_row ? mm.dims.n : *mm.dims.k,
                                 padded.domain);
  }
  return padded;
}

}  // namespace polyfuse
