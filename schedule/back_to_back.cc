#include "schedule/back_to_back.h"

#include <fmt/format.h>

#include <algorithm>

#include "frontend/diagnostics.h"
#include "frontend/idioms.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

// The two-kernel plan of the statements `first` then `second`, for kernel_program.
ProgramPlan two_kernels(const Program& program, const std::vector<std::string>& first,
                        const std::vector<std::string>& second) {
  ProgramPlan plan;
  plan.def = program.name;
  for (const auto* ids : {&first, &second}) {
    PlannedKernel kernel;
    kernel.kind = PlannedKernelKind::fused_matmul;
    kernel.name = fmt::format("{}_{}", program.name, ids == &first ? "first" : "second");
    kernel.statements = *ids;
    plan.kernels.push_back(kernel);
  }
  return plan;
}

// The names of the tensors `p` writes to memory (its outputs).
std::vector<std::string> outputs_of(const Program& p) {
  std::vector<std::string> names;
  for (const Tensor& t : p.tensors)
    if (t.role == TensorRole::output) names.push_back(t.name);
  return names;
}

// "H = 96": a size's name and value (or the literal).
std::string size_text(const Size& declared, std::int64_t value) {
  return declared.is_symbolic() ? fmt::format("{} = {}", declared.symbol, value) : std::to_string(value);
}

bool is_16_bit(ElementType type) { return type == ElementType::f16 || type == ElementType::bf16; }

// The padded hidden columns: 32 (8 columns a warp), else a multiple of 64 (the swizzle takes
// 4 or a multiple of 8 16-byte chunks a row).
int padded_hidden(std::int64_t h) { return h <= 32 ? 32 : static_cast<int>((h + 63) / 64 * 64); }

// Why the halves cannot be one back-to-back kernel ("" when they can); `tiles` filled when they can.
std::string why_not(const Program& program, const Program& first, const Program& second, const KernelPlan& p1,
                    const KernelPlan& p2, const std::string& hidden, BackToBackTiles& tiles) {
  if (p1.matmuls.size() != 1 || p2.matmuls.size() != 1)
    return "the back-to-back kernel takes one matmul in each of its halves so far";
  const MatmulStage& mm1 = p1.matmuls[0];
  const MatmulStage& mm2 = p2.matmuls[0];
  if (p1.batch_rank() != 0 || p2.batch_rank() != 0) return "the back-to-back kernel takes no batch dimensions yet";
  if (mm1.a_prologue || mm1.b_prologue || mm2.a_prologue || mm2.b_prologue)
    return "the back-to-back kernel takes no operand prologues yet";
  if (!mm1.zero_init || !mm2.zero_init) return "the back-to-back kernel takes `+=!` matmuls only";
  if (mm1.a_layout != OperandLayout::row_major || mm1.b_layout != OperandLayout::row_major ||
      mm2.b_layout != OperandLayout::row_major)
    return "the back-to-back kernel takes row-major X(m, k), W1(k, h) and W2(h, n) so far";
  if (mm2.a_layout != OperandLayout::row_major) return fmt::format("{} is read transposed by the second matmul", hidden);
  for (const Statement& s : second.statements) {
    if (s.id != mm2.dims.statement)
      for (const Access& read : s.reads)
        if (read.tensor == hidden) return fmt::format("{} reads {}, which the back-to-back kernel keeps in shared memory", s.id, hidden);
  }
  std::vector<StatementDims> written_dims;  // of the statements that store a result
  if (mm2.live_out) written_dims.push_back(mm2.dims);
  for (const PointwiseStage& pw : p2.epilogue)
    if (pw.live_out) written_dims.push_back(pw.dims);
  for (const StatementDims& dims : written_dims)
    if (second.find_statement(dims.statement)->write.indices != std::vector<std::string>{dims.m, dims.n})
      return fmt::format("{} writes its result transposed", dims.statement);
  const std::vector<std::string> written = outputs_of(first);
  if (written.size() != 1) return "the first kernel writes more than the second matmul's A operand to memory";
  const Tensor* a = first.find_tensor(hidden);
  if (program.find_tensor(hidden)->role != TensorRole::temporary)
    return fmt::format("{} is an output of the def (it must reach global memory)", hidden);
  const ElementType type = a->type;
  if (!is_16_bit(type) || first.find_tensor(mm1.a)->type != type || first.find_tensor(mm1.b)->type != type ||
      second.find_tensor(mm2.b)->type != type)
    return fmt::format("{}, {}, {} and {} must have one 16-bit type", mm1.a, mm1.b, hidden, mm2.b);
  const Size m1 = bound_size(program, mm1.dims.m_extent), h = bound_size(program, mm1.dims.n_extent);
  const Size k = bound_size(program, *mm1.dims.k_extent), m2 = bound_size(program, mm2.dims.m_extent);
  const Size h2 = bound_size(program, *mm2.dims.k_extent), n = bound_size(program, mm2.dims.n_extent);
  for (const Size& s : {m1, h, k, m2, h2, n})
    if (s.is_symbolic()) return fmt::format("size {} is not bound", s.symbol);
  if (m1.value != m2.value || h.value != h2.value) return "the two matmuls' rows or hidden columns differ";
  if (h.value > max_hidden_columns)
    return fmt::format("the first matmul's row panel has {} columns, more than the {} one block keeps on chip "
                       "(its f32 accumulators in registers, then its 16-bit tile in shared memory)",
                       size_text(first.find_tensor(mm1.b)->dims.back(), h.value), max_hidden_columns);
  tiles.m = m1.value;
  tiles.k = k.value;
  tiles.h = h.value;
  tiles.n = n.value;
  tiles.hidden_cols = padded_hidden(h.value);
  tiles.block_n = n.value <= 64 ? 64 : 128;
  return "";
}

// The statements of a back-to-back kernel split at its second matmul.
std::pair<std::vector<std::string>, std::vector<std::string>> split(const Program& program,
                                                                    const std::vector<std::string>& statements) {
  const Idioms idioms = recognize_idioms(program);
  int matmuls = 0;
  std::pair<std::vector<std::string>, std::vector<std::string>> halves;
  for (const std::string& id : statements) {
    if (idioms.find(id)->kind == IdiomKind::matmul) ++matmuls;
    (matmuls >= 2 ? halves.second : halves.first).push_back(id);
  }
  return halves;
}

// The note of a back-to-back kernel.
std::string describe(const BackToBack& b) {
  const BackToBackTiles& t = b.tiles;
  const MatmulStage& mm1 = b.first_plan.matmuls[0];
  const MatmulStage& mm2 = b.second_plan.matmuls[0];
  const Tensor& x = *b.first.find_tensor(mm1.a);
  const Tensor& w1 = *b.first.find_tensor(mm1.b);
  const std::string n_loop =
      t.n_tiles() == 1
          ? fmt::format("then {}'s one N tile ({} columns) reads A from it", mm2.dims.statement, t.block_n)
          : fmt::format("then the block loops over {}'s {} N tiles of {} columns reusing it (recomputing {} for each "
                        "N tile instead would do its work {} times)",
                        mm2.dims.statement, t.n_tiles(), t.block_n, mm1.dims.statement, t.n_tiles());
  return fmt::format(
      "back-to-back matmuls in one kernel: each block computes {} rows of {} over all {} columns (k-loop over {}), "
      "its epilogue writes {} ({}) into shared memory as {}'s A operand ({} x {}, swizzled for ldmatrix{}), one "
      "barrier, {}; {} never reaches global memory. On sm_90a this mma.sync kernel runs too (no wgmma back-to-back "
      "kernel yet)",
      t.block_m, mm1.dims.statement, size_text(w1.dims.back(), t.h), size_text(x.dims.back(), t.k), b.hidden,
      to_string(b.first.find_tensor(b.hidden)->type), mm2.dims.statement, t.block_m, t.hidden_cols,
      t.hidden_cols == t.h ? "" : fmt::format(", zero past column {}", t.h), n_loop, b.hidden);
}

// Fills `b` for the halves `first` / `second`; the reason they are not one kernel, or "".
std::optional<std::string> analyse(const Program& program, const std::vector<std::string>& first,
                                   const std::vector<std::string>& second, BackToBack& b) {
  const ProgramPlan two = two_kernels(program, first, second);
  b.first = kernel_program(program, two, 0);
  b.second = kernel_program(program, two, 1);
  try {
    b.first_plan = plan_gpu_kernel(b.first, recognize_idioms(b.first));
    b.second_plan = plan_gpu_kernel(b.second, recognize_idioms(b.second));
  } catch (const UserError&) {
    return std::nullopt;  // not two fused matmul kernels
  }
  if (b.second_plan.matmuls.empty()) return std::nullopt;
  const std::string& a = b.second_plan.matmuls[0].a;
  const std::vector<std::string> written = outputs_of(b.first);
  if (std::find(written.begin(), written.end(), a) == written.end()) return std::nullopt;
  b.hidden = a;
  for (const Statement& s : program.statements) {
    const bool in_chain = std::find(first.begin(), first.end(), s.id) != first.end() ||
                          std::find(second.begin(), second.end(), s.id) != second.end();
    if (!in_chain)
      for (const Access& read : s.reads)
        if (read.tensor == a) return fmt::format("{} reads {} after the chain (it must reach memory)", s.id, a);
  }
  return why_not(program, b.first, b.second, b.first_plan, b.second_plan, a, b.tiles);
}

}  // namespace

std::optional<std::string> why_not_back_to_back(const Program& program, const std::vector<std::string>& first,
                                                const std::vector<std::string>& second) {
  BackToBack b;
  return analyse(program, first, second, b);
}

void merge_back_to_back(const Program& program, ProgramPlan& plan) {
  for (std::size_t k = 0; k + 1 < plan.kernels.size(); ++k) {
    PlannedKernel& first = plan.kernels[k];
    const PlannedKernel& second = plan.kernels[k + 1];
    if (first.kind != PlannedKernelKind::fused_matmul || second.kind != PlannedKernelKind::fused_matmul ||
        first.view || second.view)
      continue;
    BackToBack b;
    const std::optional<std::string> why = analyse(program, first.statements, second.statements, b);
    if (!why) continue;
    if (!why->empty()) {
      first.note = fmt::format("two kernels, not one back-to-back kernel: {}", *why);
      continue;
    }
    first.kind = PlannedKernelKind::back_to_back;
    first.statements.insert(first.statements.end(), second.statements.begin(), second.statements.end());
    first.cut = second.cut;
    first.note = describe(b);
    plan.kernels.erase(plan.kernels.begin() + static_cast<std::ptrdiff_t>(k) + 1);
  }
}

BackToBack back_to_back_of(const Program& program, const std::vector<std::string>& statements) {
  const auto halves = split(program, statements);
  BackToBack b;
  const std::optional<std::string> why = analyse(program, halves.first, halves.second, b);
  PF_INTERNAL_CHECK(why && why->empty(), "not a back-to-back kernel: " + why.value_or("not a chain"));
  return b;
}

}  // namespace polyfuse
