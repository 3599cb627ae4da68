#include "schedule/fused_row_chain.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "frontend/diagnostics.h"
#include "frontend/idioms.h"
#include "schedule/plan_from_program.h"
#include "schedule/program_plan.h"

namespace polyfuse {
namespace {

bool contains(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// `program` with only the statements `ids` (every tensor kept).
Program with_statements(const Program& program, const std::vector<std::string>& ids) {
  Program reduced = program;
  reduced.statements.clear();
  for (const Statement& s : program.statements)
    if (contains(ids, s.id)) reduced.statements.push_back(s);
  return reduced;
}

// The first message of `error`.
std::string message_of(const UserError& error) {
  return error.diagnostics().empty() ? std::string(error.what()) : error.diagnostics().front().message;
}

// Why the chain's statements do not run on the head's fragments (reads, `op=`), or "".
std::string chain_refusal(const Program& program, const std::set<std::string>& head_results, const RowChain& rows,
                          const std::vector<std::string>& chain) {
  std::vector<std::string> element = rows.rows;
  element.insert(element.end(), rows.columns.begin(), rows.columns.end());
  std::set<std::string> written;
  for (const std::string& id : chain) written.insert(program.find_statement(id)->write.tensor);
  for (const std::string& id : chain) {
    const Statement& s = *program.find_statement(id);
    if (s.kind == StatementKind::reduce)
      return fmt::format("{} updates {} from its value (`{}`), which the fragments do not hold", id, s.write.tensor,
                         operator_spelling(s));
    if (head_results.count(s.write.tensor))
      return fmt::format("{} writes {}, a result of the matmul kernel", id, s.write.tensor);
    for (const Access& read : s.reads) {
      if (head_results.count(read.tensor) && read.indices != element)
        return fmt::format("{} reads {} at other indices than its element ({})", id, read.tensor,
                           fmt::join(element, ", "));
      if (!head_results.count(read.tensor) && !written.count(read.tensor) &&
          program.find_tensor(read.tensor)->role != TensorRole::input)
        return fmt::format("{} reads {}, which is neither an input nor computed in the kernel", id, read.tensor);
    }
  }
  return "";
}

}  // namespace

std::variant<FusedRowChain, std::string> fused_row_chain_of(const Program& program, const std::vector<std::string>& head,
                                                            const std::vector<std::string>& chain) {
  if (head.empty() || chain.empty()) return std::string("there is no matmul kernel before the row chain");
  const Program matmuls = with_statements(program, head);
  KernelPlan plan;
  try {
    plan = plan_gpu_kernel(matmuls, recognize_idioms(matmuls));
  } catch (const UserError& error) {
    return "the statements before it are not one matmul kernel: " + message_of(error);
  }
  const std::variant<RowChain, std::string> rows = row_chain_of(program, chain);
  if (const std::string* why = std::get_if<std::string>(&rows)) return *why;
  FusedRowChain fused{head, chain, std::get<RowChain>(rows), 0};
  const RowChain& r = fused.rows;
  const std::size_t batch_rank = static_cast<std::size_t>(plan.batch_rank());
  if (r.rows.size() != batch_rank + 1 || r.columns.size() != 1)
    return batch_rank == 0
               ? fmt::format("the chain's rows ({}) and columns ({}) are not one index each, the matmul output's rows "
                             "and columns",
                             fmt::join(r.rows, ", "), fmt::join(r.columns, ", "))
               : fmt::format("the chain's rows ({}) and columns ({}) are not the matmul output's {} batch indices and "
                             "row, and its column",
                             fmt::join(r.rows, ", "), fmt::join(r.columns, ", "), batch_rank);
  // a block runs one batch element's rows: the chain's rows are (batch.., row) of each matmul statement
  for (const StatementDims& dims : plan.all_statements()) {
    std::vector<Size> extents = dims.batch_extents;
    extents.push_back(dims.m_extent);
    bool same = bound_size(program, dims.n_extent).value == r.column_count;
    for (std::size_t i = 0; same && i < extents.size(); ++i) same = bound_size(program, extents[i]).value == r.row_extents[i];
    if (!same) {
      std::vector<std::string> names;
      for (const Size& e : extents) names.push_back(e.to_string());
      return fmt::format("the chain runs over rows ({}) of {} columns, but statement {} of the matmul kernel over ({}) x {}",
                         fmt::join(r.row_extents, " x "), r.column_count, dims.statement, fmt::join(names, " x "),
                         dims.n_extent.to_string());
    }
  }
  std::set<std::string> head_results;
  for (const Statement& s : matmuls.statements) head_results.insert(s.write.tensor);
  if (const std::string why = chain_refusal(program, head_results, r, chain); !why.empty()) return why;
  fused.row_length = r.column_count;
  if (fused.row_length > fused_row_limit)
    return fmt::format("the row of {} columns does not fit the block tile of {}", fused.row_length, fused_row_limit);
  return fused;
}

std::optional<FusedRowChain> fused_row_chain(const Program& program) {
  const Idioms idioms = recognize_idioms(program);
  std::vector<std::string> head, chain;
  for (const Statement& s : program.statements) {
    const bool row_reduction = idioms.find(s.id)->kind == IdiomKind::other && !s.reduction_indices().empty();
    (chain.empty() && !row_reduction ? head : chain).push_back(s.id);
  }
  if (chain.empty()) return std::nullopt;
  if (!program.parameters.empty()) return std::nullopt;  // a row's length must be known
  // The chain may begin with pointwise statements after the matmuls, where the matmul kernel
  // does not take them as its epilogue (the planner's split then): from the latest split back.
  while (true) {
    std::variant<FusedRowChain, std::string> fused = fused_row_chain_of(program, head, chain);
    if (FusedRowChain* f = std::get_if<FusedRowChain>(&fused)) return std::move(*f);
    if (head.size() <= 1 || idioms.find(head.back())->kind != IdiomKind::pointwise) return std::nullopt;
    chain.insert(chain.begin(), head.back());
    head.pop_back();
  }
}

Program head_program(const Program& program, const FusedRowChain& fused) { return with_statements(program, fused.head); }

Program matmul_part(const Program& program) {
  const std::optional<FusedRowChain> fused = fused_row_chain(program);
  return fused ? head_program(program, *fused) : program;
}

GpuOptions options_spanning_row(const GpuOptions& options, const FusedRowChain& fused) {
  GpuOptions o = options;
  const std::string chain = fmt::format("{}", fmt::join(fused.chain, ", "));
  if (o.split_k != 1)
    throw UserError(fmt::format("`split_k` {}: the row chain {} runs on the accumulator fragments of one warp per tile; "
                                "use `split_k=1`",
                                o.split_k, chain));
  if (o.mma != MmaShape::m16n8k16)
    throw UserError(fmt::format("`mma` {}: the row chain {} runs on m16n8k16 accumulator fragments; use `mma=m16n8k16`",
                                to_string(o.mma), chain));
  // A block the user set is kept (a tile other than the default is always one the user set).
  if (o.block_chosen || o.block != default_gpu_options(o.arch).block) {
    if (o.block.n < fused.row_length)
      throw UserError(fmt::format("`block` {}: the row chain {} runs in the matmul kernel when one block tile spans the "
                                  "row of {} columns; use a block N of at least {} or leave `block` unset",
                                  to_string(o.block), chain, fused.row_length, fused.row_length));
    return o;
  }
  int n = 32;
  while (n < fused.row_length) n *= 2;
  o.block = TileShape{64, n, o.block.k};
  o.warp = TileShape{32, std::min(64, n), o.block.k};
  o.choose_warp = true;
  return o;
}

void fuse_row_chains_into_matmul_kernels(const Program& program, ProgramPlan& plan) {
  for (std::size_t k = 0; k + 1 < plan.kernels.size(); ++k) {
    PlannedKernel& matmul = plan.kernels[k];
    const PlannedKernel& chain = plan.kernels[k + 1];
    if (matmul.kind != PlannedKernelKind::fused_matmul || matmul.view || chain.kind != PlannedKernelKind::row_chain ||
        chain.view)
      continue;
    std::variant<FusedRowChain, std::string> fused = fused_row_chain_of(program, matmul.statements, chain.statements);
    if (const std::string* why = std::get_if<std::string>(&fused)) {
      const std::string starts = "starts a new kernel: ";
      const std::size_t at = matmul.cut.find(starts);
      if (at != std::string::npos)
        matmul.cut = matmul.cut.substr(0, at + starts.size()) +
                     "the row chain does not run in the matmul kernel's epilogue: " + *why;
      continue;
    }
    const FusedRowChain& f = std::get<FusedRowChain>(fused);
    matmul.partition = fmt::format("the row chain {} runs in the epilogue on the accumulator fragments (quad shuffles, "
                                   "then shared memory across the warps of a row): the row of {} columns fits a "
                                   "block tile (at most {})",
                                   fmt::join(f.chain, ", "), f.row_length, fused_row_limit);
    matmul.statements.insert(matmul.statements.end(), chain.statements.begin(), chain.statements.end());
    matmul.cut = chain.cut;
    plan.kernels.erase(plan.kernels.begin() + static_cast<std::ptrdiff_t>(k + 1));
  }
}

}  // namespace polyfuse
