#include "codegen/added_matmuls.h"

#include <fmt/format.h>

namespace polyfuse {
namespace {

// The read index of `tensor` in `s` when `e` is that read, else -1.
int read_of(const Statement& s, const Expr& e, const std::string& tensor) {
  return e.kind == ExprKind::read && s.reads[e.read].tensor == tensor ? e.read : -1;
}

// The node of `e` that adds the reads of `first` and `second` (either order), or nullptr.
Expr* added_node(const Statement& s, Expr& e, const std::string& first, const std::string& second) {
  if (e.kind == ExprKind::binary && e.op == BinaryOp::add) {
    const Expr &l = e.operands[0], &r = e.operands[1];
    if ((read_of(s, l, first) >= 0 && read_of(s, r, second) >= 0) || (read_of(s, l, second) >= 0 && read_of(s, r, first) >= 0))
      return &e;
  }
  for (Expr& operand : e.operands)
    if (Expr* found = added_node(s, operand, first, second)) return found;
  return nullptr;
}

// The epilogue statement of `program` that adds the two results (nullptr when none, when
// either is read elsewhere or at other indices, or written again).
Statement* adding_statement(Program& program, const KernelPlan& plan) {
  const std::string &first = plan.matmuls[0].c, &second = plan.matmuls[1].c;
  Statement* adding = nullptr;
  int reads_of_first = 0, reads_of_second = 0;
  for (const PointwiseStage& stage : plan.epilogue) {
    if (stage.output == first || stage.output == second) return nullptr;  // an update: not the matmul's sum
    Statement& s = program.statements[program.statement_index(stage.dims.statement)];
    const Access* a = nullptr;
    const Access* b = nullptr;
    for (const Access& access : s.reads) {
      if (access.tensor == first) ++reads_of_first, a = &access;
      if (access.tensor == second) ++reads_of_second, b = &access;
    }
    if (a && b && a->is_plain() && b->is_plain() && a->indices == b->indices && added_node(s, s.expr, first, second))
      adding = &s;
  }
  return reads_of_first == 1 && reads_of_second == 1 ? adding : nullptr;
}

// `e` with reads past `removed` renumbered one down.
void renumber_reads(Expr& e, int removed) {
  if (e.kind == ExprKind::read && e.read > removed) --e.read;
  for (Expr& operand : e.operands) renumber_reads(operand, removed);
}

}  // namespace

std::string added_matmuls_refusal(const Program& program, const KernelPlan& plan, const GpuOptions& o) {
  if (plan.matmuls.size() != 2) return "not two matmuls";
  if (plan.matmuls[1].shares_a_with_previous) return "the matmuls share their A tile in one k-loop";
  for (const MatmulStage& mm : plan.matmuls) {
    if (!mm.zero_init) return fmt::format("{} is a `+=` reduction", mm.c);
    if (mm.live_out) return fmt::format("{} is stored", mm.c);
    if (program.find_statement(mm.dims.statement)->reduction != ReductionOp::sum) return fmt::format("{} is not a sum", mm.c);
  }
  if (o.split_k != 1) return "intra-block split-K reduces each accumulator on its own";
  Program copy = program;
  if (!adding_statement(copy, plan))
    return fmt::format("the epilogue does not read {} and {} once each, added at the same indices", plan.matmuls[0].c,
                       plan.matmuls[1].c);
  return "";
}

bool fold_added_matmuls(Program& program, KernelPlan& plan, const GpuOptions& o) {
  if (!added_matmuls_refusal(program, plan, o).empty()) return false;
  const std::string &first = plan.matmuls[0].c, &second = plan.matmuls[1].c;
  Statement& s = *adding_statement(program, plan);
  Expr& sum = *added_node(s, s.expr, first, second);
  const int kept = read_of(s, sum.operands[0], first) >= 0 ? 0 : 1;
  const int removed = sum.operands[1 - kept].read;
  const Expr read = sum.operands[kept];
  sum = read;  // the first matmul's tile holds C1 + C2
  s.reads.erase(s.reads.begin() + removed);
  renumber_reads(s.expr, removed);
  plan.matmuls[1].accumulates_into = first;
  return true;
}

}  // namespace polyfuse
