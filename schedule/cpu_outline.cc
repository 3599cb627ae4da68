#include "schedule/cpu_outline.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "frontend/idioms.h"
#include "frontend/polyhedral_model.h"

namespace polyfuse {
namespace {

// The functions kernels/cpu computes on vectors (vector_math.h), but for abs (a scalar
// operation as cheap as a read).
bool has_vector_code(Function function) {
  switch (function) {
    case Function::exp:
    case Function::tanh:
    case Function::sigmoid:
    case Function::silu:
    case Function::gelu_erf:
    case Function::gelu_tanh:
    case Function::log:
    case Function::sqrt:
    case Function::rsqrt: return true;
    default: return false;
  }
}

// Whether `expr` is arithmetic a pointwise stage computes: reads, literals, + - * /, negation, calls.
bool arithmetic(const Expr& expr) {
  if (expr.kind != ExprKind::read && expr.kind != ExprKind::constant && expr.kind != ExprKind::negate &&
      expr.kind != ExprKind::binary && expr.kind != ExprKind::call)
    return false;
  return std::all_of(expr.operands.begin(), expr.operands.end(), [](const Expr& e) { return arithmetic(e); });
}

// A plain read (no boundary value, no gather) whose indices are indices of the statement.
bool plain_read(const Access& access) {
  if (!access.is_plain() || access.outside_value || access.is_index) return false;
  return std::none_of(access.subscripts.begin(), access.subscripts.end(),
                      [](const AffineIndex& subscript) { return subscript.is_gather(); });
}

// Whether the call `call` of `statement` may become a temporary: see the header.
bool outlinable(const Statement& statement, const Expr& call, const std::string& r) {
  if (call.kind != ExprKind::call || !has_vector_code(call.function) || !arithmetic(call)) return false;
  bool reads_r = false;
  for (int read : reads_in(call)) {
    const Access& access = statement.reads.at(static_cast<std::size_t>(read));
    if (!plain_read(access)) return false;
    const auto at = std::find(access.indices.begin(), access.indices.end(), r);
    if (at == access.indices.end()) continue;
    if (at + 1 != access.indices.end()) return false;  // r not the contiguous dimension
    reads_r = true;
  }
  return reads_r;
}

// The outermost outlinable call in `expr` (pre-order), or nullptr.
const Expr* outlinable_call(const Statement& statement, const Expr& expr, const std::string& r) {
  if (outlinable(statement, expr, r)) return &expr;
  for (const Expr& operand : expr.operands)
    if (const Expr* found = outlinable_call(statement, operand, r)) return found;
  return nullptr;
}

// Whether `statement` (of `program`, whose idioms are `idioms`) is a reduction whose terms may be
// outlined; its reduction index in `r`.
bool candidate(const Program& program, const Idioms& idioms, const Statement& statement, std::string& r) {
  const StatementIdiom* idiom = idioms.find(statement.id);
  if (!idiom || idiom->kind != IdiomKind::other) return false;  // a matmul's terms stay the BRGEMM's
  if (!statement.is_reduction() || statement.reduction == ReductionOp::product ||
      statement.accumulate_type != ElementType::f32)
    return false;
  const std::vector<std::string> reductions = statement.reduction_indices();
  if (reductions.size() != 1 || statement.indices.back().name != reductions.front()) return false;
  r = reductions.front();
  const std::vector<int> order = reads_in(statement.expr);  // no read outside the expression
  if (order.size() != statement.reads.size()) return false;
  for (std::size_t i = 0; i < order.size(); ++i)
    if (order[i] != static_cast<int>(i)) return false;
  return statement.domain.is_equal(statement_domain(program, statement.id, statement.indices));
}

// `expr` with its reads renumbered left to right into `reads` (from `source`'s).
Expr renumbered(const Expr& expr, const Statement& source, std::vector<Access>& reads) {
  Expr copy = expr;
  if (expr.kind == ExprKind::read) {
    copy.read = static_cast<int>(reads.size());
    reads.push_back(source.reads.at(static_cast<std::size_t>(expr.read)));
    return copy;
  }
  for (Expr& operand : copy.operands) operand = renumbered(operand, source, reads);
  return copy;
}

// `expr` with the node `call` (by address) replaced by `replacement`; reads renumbered.
Expr replaced(const Expr& expr, const Expr* call, const Expr& replacement, const Access& replacement_read,
              const Statement& source, std::vector<Access>& reads) {
  if (&expr == call) {
    Expr read = replacement;
    read.read = static_cast<int>(reads.size());
    reads.push_back(replacement_read);
    return read;
  }
  if (expr.kind == ExprKind::read) return renumbered(expr, source, reads);
  Expr copy = expr;
  copy.operands.clear();
  for (const Expr& operand : expr.operands) copy.operands.push_back(replaced(operand, call, replacement, replacement_read, source, reads));
  return copy;
}

}  // namespace

Program outline_transcendental_terms(const Program& program) {
  Program result = program;
  const Idioms idioms = recognize_idioms(program);
  for (std::size_t s = 0; s < result.statements.size();) {
    const Statement reduction = result.statements[s];
    std::string r;
    const Expr* call = candidate(result, idioms, reduction, r) ? outlinable_call(reduction, reduction.expr, r) : nullptr;
    if (!call) {
      ++s;
      continue;
    }
    const std::vector<std::string> names = reduction.index_names();

    Tensor terms;  // the temporary, S's indices in order
    terms.name = fresh_name(result, reduction.id + "_" + std::string(to_string(call->function)));
    terms.type = ElementType::f32;
    terms.role = TensorRole::temporary;
    terms.location = call->location;
    for (const IterationIndex& index : reduction.indices) terms.dims.push_back(index.extent);
    terms.extent = tensor_extent(result, terms);

    Statement writer;  // terms(indices) = call
    writer.id = terms.name;
    writer.kind = StatementKind::assign;
    writer.indices = reduction.indices;
    for (IterationIndex& index : writer.indices) index.is_reduction = false;
    writer.domain = statement_domain(result, writer.id, writer.indices);
    writer.write = plain_access(terms.name, names, writer.domain, names, call->location);
    writer.expr = renumbered(*call, reduction, writer.reads);
    for (Access& read : writer.reads) read.relation = read.relation.set_domain_tuple(writer.id);
    writer.accumulate_type = ElementType::f32;
    writer.location = reduction.location;

    Statement reader = reduction;  // the reduction of terms(indices)
    reader.reads.clear();
    reader.expr = replaced(reduction.expr, call, Expr::read_node(0, call->location),
                           plain_access(terms.name, names, reduction.domain, names, call->location), reduction,
                           reader.reads);

    result.tensors.push_back(std::move(terms));
    result.statements[s] = std::move(reader);
    result.statements.insert(result.statements.begin() + static_cast<std::ptrdiff_t>(s), std::move(writer));
    ++s;  // past the writer, to the reduction again: its next call, if it has one (this one is a read now)
  }
  return result;
}

}  // namespace polyfuse
