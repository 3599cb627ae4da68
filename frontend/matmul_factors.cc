#include "frontend/matmul_factors.h"

#include <algorithm>
#include <string>
#include <vector>

#include "frontend/idioms.h"
#include "frontend/polyhedral_model.h"

namespace polyfuse {
namespace {

// One factor of a chain of products and quotients: `expr`, multiplied or (divisor) divided by.
struct Factor {
  const Expr* expr;
  bool divisor;
};

// The factors of `expr` (a * b * c / d: a, b, c, /d), left to right.
void factors_of(const Expr& expr, bool divisor, std::vector<Factor>& factors) {
  if (!divisor && expr.kind == ExprKind::binary && (expr.op == BinaryOp::mul || expr.op == BinaryOp::div)) {
    factors_of(expr.operands[0], false, factors);
    if (expr.op == BinaryOp::mul) factors_of(expr.operands[1], false, factors);
    else factors.push_back({&expr.operands[1], true});
    return;
  }
  factors.push_back({&expr, divisor});
}

// Whether `expr` is a value along the sum: literals, plain reads of none of `reductions`, and
// operations and calls of them (no index value, condition or gather).
bool constant_along_sum(const Statement& statement, const Expr& expr, const std::vector<std::string>& reductions) {
  switch (expr.kind) {
    case ExprKind::constant: return true;
    case ExprKind::read: {
      const Access& access = statement.reads.at(static_cast<std::size_t>(expr.read));
      if (!access.is_plain() || access.outside_value || access.is_index) return false;
      return std::none_of(access.indices.begin(), access.indices.end(), [&](const std::string& index) {
        return std::find(reductions.begin(), reductions.end(), index) != reductions.end();
      });
    }
    case ExprKind::negate:
    case ExprKind::binary:
    case ExprKind::call:
      return std::all_of(expr.operands.begin(), expr.operands.end(),
                         [&](const Expr& operand) { return constant_along_sum(statement, operand, reductions); });
    default: return false;
  }
}

// `expr` with its reads renumbered left to right into `reads`, each relation rebuilt on
// `domain` (whose dimensions are `indices`).
Expr moved(const Expr& expr, const Statement& source, const isl::set& domain, const std::vector<std::string>& indices,
           std::vector<Access>& reads) {
  Expr copy = expr;
  if (expr.kind == ExprKind::read) {
    Access access = source.reads.at(static_cast<std::size_t>(expr.read));
    access.relation = access_relation(domain, indices, access.tensor, access.subscripts);
    copy.read = static_cast<int>(reads.size());
    reads.push_back(std::move(access));
    return copy;
  }
  for (Expr& operand : copy.operands) operand = moved(operand, source, domain, indices, reads);
  return copy;
}

// Whether statement `id` of `program` is a matmul or a batch-reduce matmul (idioms.h).
bool is_matmul(const Program& program, const std::string& id) {
  const Idioms idioms = recognize_idioms(program);  // (find's pointer is into it)
  const StatementIdiom* idiom = idioms.find(id);
  return idiom && (idiom->kind == IdiomKind::matmul || idiom->kind == IdiomKind::batch_reduce_matmul);
}

bool distinct(const std::vector<std::string>& names) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (std::find(names.begin() + static_cast<std::ptrdiff_t>(i) + 1, names.end(), names[i]) != names.end()) return false;
  return true;
}

bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Whether `statement` (a sum) is a contraction a GEMM computes (the rules of
// schedule/contraction_to_gemm.h but the sizes): a product of plain reads of two tensors, each
// index once in each access, every written index in a factor, every summed index in both, and
// free indices in both.
bool is_contraction(const Statement& statement) {
  const Expr& e = statement.expr;
  if (e.kind != ExprKind::binary || e.op != BinaryOp::mul || e.operands[0].kind != ExprKind::read ||
      e.operands[1].kind != ExprKind::read)
    return false;
  const Access& x = statement.reads.at(static_cast<std::size_t>(e.operands[0].read));
  const Access& y = statement.reads.at(static_cast<std::size_t>(e.operands[1].read));
  const std::vector<std::string>& o = statement.write.indices;
  if (!x.is_plain() || !y.is_plain() || x.is_index || y.is_index || x.outside_value || y.outside_value ||
      x.tensor == y.tensor || !distinct(x.indices) || !distinct(y.indices) || !distinct(o))
    return false;
  bool x_free = false, y_free = false;
  for (const std::string& i : o) {
    if (!has(x.indices, i) && !has(y.indices, i)) return false;
    x_free |= has(x.indices, i) && !has(y.indices, i);
    y_free |= has(y.indices, i) && !has(x.indices, i);
  }
  for (const std::string& i : statement.reduction_indices())
    if (!has(x.indices, i) || !has(y.indices, i)) return false;
  return x_free && y_free;
}

// Whether `statement` may be split: a `+=!` sum over its whole box, writing a plain access that
// it does not read, every read in its expression in order (no gather's index reads).
bool candidate(const Program& program, const Statement& statement) {
  if (statement.kind != StatementKind::reduce_init || statement.reduction != ReductionOp::sum) return false;
  if (!statement.write.is_plain() || statement.accumulate_type != ElementType::f32) return false;
  const std::vector<int> order = reads_in(statement.expr);
  if (order.size() != statement.reads.size()) return false;
  for (std::size_t i = 0; i < order.size(); ++i)
    if (order[i] != static_cast<int>(i) || statement.reads[i].tensor == statement.write.tensor) return false;
  return statement.domain.is_equal(statement_domain(program, statement.id, statement.indices));
}

// `program` with statement `s` split in two (see the header), or nothing when it is not a
// matmul's terms times values along the sum.
std::optional<Program> split(const Program& program, std::size_t s) {
  const Statement& sum = program.statements[s];
  if (!candidate(program, sum) || is_matmul(program, sum.id)) return std::nullopt;
  const std::vector<std::string> reductions = sum.reduction_indices();
  std::vector<Factor> factors;
  factors_of(sum.expr, false, factors);
  std::vector<Factor> terms, scales;
  for (const Factor& factor : factors)
    (constant_along_sum(sum, *factor.expr, reductions) ? scales : terms).push_back(factor);
  if (scales.empty() || terms.size() < 2) return std::nullopt;
  if (std::any_of(terms.begin(), terms.end(), [](const Factor& f) { return f.divisor; })) return std::nullopt;

  Program result = program;
  const SourceLocation at = sum.location;
  Tensor total;  // the sum before the factors: f32, the written indices' extents
  total.name = fresh_name(program, sum.write.tensor + "_sum");
  total.type = ElementType::f32;
  total.role = TensorRole::temporary;
  total.location = at;
  std::vector<IterationIndex> written;
  for (const std::string& index : sum.write.indices)
    for (const IterationIndex& dim : sum.indices)
      if (dim.name == index) written.push_back(dim);
  for (const IterationIndex& dim : written) total.dims.push_back(dim.extent);
  total.extent = tensor_extent(result, total);

  Statement matmul = sum;  // total(indices) +=! the product of the terms
  matmul.reads.clear();
  const std::vector<std::string> all = sum.index_names();
  Expr product = moved(*terms[0].expr, sum, sum.domain, all, matmul.reads);
  for (std::size_t i = 1; i < terms.size(); ++i)
    product = Expr::binary_node(BinaryOp::mul, product, moved(*terms[i].expr, sum, sum.domain, all, matmul.reads), at);
  matmul.expr = product;
  matmul.write = plain_access(total.name, sum.write.indices, sum.domain, all, at);

  Statement scale;  // written(indices) = total(indices) * each factor, / each divisor, in order
  scale.id = fresh_name(program, sum.id + "_scale");
  scale.kind = StatementKind::assign;
  scale.indices = written;
  scale.domain = statement_domain(result, scale.id, scale.indices);
  const std::vector<std::string> names = scale.index_names();
  scale.reads.push_back(plain_access(total.name, sum.write.indices, scale.domain, names, at));
  Expr value = Expr::read_node(0, at);
  for (const Factor& factor : scales)
    value = Expr::binary_node(factor.divisor ? BinaryOp::div : BinaryOp::mul, value,
                              moved(*factor.expr, sum, scale.domain, names, scale.reads), at);
  scale.expr = value;
  scale.write = sum.write;
  scale.write.relation = access_relation(scale.domain, names, sum.write.tensor, sum.write.subscripts);
  scale.accumulate_type = ElementType::f32;
  scale.location = at;

  result.tensors.push_back(std::move(total));
  result.statements[s] = std::move(matmul);
  result.statements.insert(result.statements.begin() + static_cast<std::ptrdiff_t>(s) + 1, std::move(scale));
  if (!is_matmul(result, sum.id) && !is_contraction(result.statements[s])) return std::nullopt;
  return result;
}

}  // namespace

Program factor_matmul_scales(const Program& program) {
  Program result = program;
  for (std::size_t s = 0; s < result.statements.size(); ++s)
    if (std::optional<Program> split_program = split(result, s)) {
      result = std::move(*split_program);
      ++s;  // past the scale statement
    }
  return result;
}

}  // namespace polyfuse
