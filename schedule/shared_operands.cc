#include "schedule/shared_operands.h"

#include <fmt/format.h>
#include <fmt/ranges.h>


namespace polyfuse {

namespace {

// The dims text of a statement without its name: "[m, n, k]".
std::string dims_text(const StatementDims& dims) {
  std::string tuple = dims.tuple_text();
  return tuple.substr(tuple.find('['));
}

bool same_extents(const StatementDims& a, const StatementDims& b) {
  return a.batch_extents == b.batch_extents && a.m_extent == b.m_extent && a.n_extent == b.n_extent &&
         a.k_extent == b.k_extent;
}

// The statement's instances in the plan.
isl::union_set domain_of(const KernelPlan& plan, const StatementDims& dims) {
  return plan.domain.intersect(isl::union_set(plan.domain.ctx(), "{ " + dims.tuple_text() + " }"));
}

bool same_expr(const Expr& a, const Expr& b) {
  if (a.kind != b.kind || a.value != b.value || a.read != b.read || a.op != b.op || a.function != b.function ||
      a.operands.size() != b.operands.size())
    return false;
  for (size_t i = 0; i < a.operands.size(); ++i)
    if (!same_expr(a.operands[i], b.operands[i])) return false;
  return true;
}

// Both absent, or the same function of the same tensors.
bool same_prologue(const std::optional<OperandPrologue>& a, const std::optional<OperandPrologue>& b) {
  if (!a || !b) return !a && !b;
  if (a->source != b->source || !same_expr(a->expr, b->expr) || a->operands.size() != b->operands.size()) return false;
  for (size_t i = 0; i < a->operands.size(); ++i)
    if (a->operands[i].tensor != b->operands[i].tensor || a->operands[i].indices != b->operands[i].indices) return false;
  return true;
}

// The tensors `mm` reads: its operands and their prologues' sources and operands.
std::vector<std::string> reads_of(const MatmulStage& mm) {
  std::vector<std::string> reads{mm.a, mm.b};
  for (const auto& prologue : {mm.a_prologue, mm.b_prologue})
    if (prologue) {
      reads.push_back(prologue->source);
      for (const PrologueOperand& operand : prologue->operands) reads.push_back(operand.tensor);
    }
  if (!mm.zero_init) reads.push_back(mm.c);
  return reads;
}

}  // namespace

std::string why_not_shared_a(const KernelPlan& plan, const MatmulGroup& group, const MatmulStage& next) {
  const MatmulStage& lead = group.leader();
  if (next.a != lead.a) return fmt::format("it reads A = {}, not {}", next.a, lead.a);
  if (dims_text(next.dims) != dims_text(lead.dims) || !same_extents(next.dims, lead.dims))
    return "its output tiles or k range differ";
  if (next.a_layout != lead.a_layout || !same_prologue(next.a_prologue, lead.a_prologue))
    return "it reads A with another layout or prologue";
  // next's instances as the leader's (the same dims, in the same order)
  isl::union_map as_lead(isl::map(plan.domain.ctx(), fmt::format("{{ {} -> {}{} }}", next.dims.tuple_text(),
                                                                   lead.dims.statement, dims_text(next.dims))));
  if (!as_lead.reverse().apply_range(isl::union_map(next.a_access)).is_equal(isl::union_map(lead.a_access)))
    return "it reads other elements of A";
  if (!domain_of(plan, next.dims).apply(as_lead).is_equal(domain_of(plan, lead.dims))) return "its instances differ";
  for (const MatmulStage* member : group.members) {
    if (member->c == next.c) return fmt::format("it writes {} too", next.c);
    for (const std::string& read : reads_of(next))
      if (read == member->c) return fmt::format("it reads {}, which {} writes", read, member->dims.statement);
    for (const std::string& read : reads_of(*member))
      if (read == next.c) return fmt::format("{} reads {}, which it writes", member->dims.statement, next.c);
  }
  return "";
}

void share_operand_tiles(KernelPlan& plan) {
  for (size_t i = 1; i < plan.matmuls.size(); ++i) {
    std::vector<MatmulGroup> groups = plan.matmul_groups();
    // the group that ends with matmul i - 1
    const MatmulGroup* last = nullptr;
    for (const MatmulGroup& group : groups)
      for (const MatmulStage* mm : group.members)
        if (mm == &plan.matmuls[i - 1]) last = &group;
    plan.matmuls[i].shares_a_with_previous = why_not_shared_a(plan, *last, plan.matmuls[i]).empty();
  }
}

std::vector<std::string> shared_operand_loops(const KernelPlan& plan) {
  std::vector<std::string> lines;
  for (const MatmulGroup& group : plan.matmul_groups()) {
    if (group.members.size() == 1) continue;
    std::vector<std::string> names;
    for (const MatmulStage* mm : group.members) names.push_back(mm->dims.statement);
    const std::string last = names.back();
    names.pop_back();
    lines.push_back(fmt::format("{} and {} run in one k-loop that loads {}'s tiles once per k-step", fmt::join(names, ", "),
                                last, group.leader().a_prologue ? group.leader().a_prologue->source : group.leader().a));
  }
  return lines;
}

}  // namespace polyfuse
