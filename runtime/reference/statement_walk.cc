#include "runtime/reference/statement_walk.h"

#include <algorithm>

#include "frontend/diagnostics.h"
#include "runtime/reference/tensor_data.h"

#include <string>

namespace polyfuse::reference {
namespace {

void flatten(const Expr& expr, const std::vector<std::string>& indices, std::vector<Instruction>& code) {
  for (const Expr& operand : expr.operands) flatten(operand, indices, code);
  Instruction instruction;
  instruction.kind = expr.kind;
  instruction.value = expr.value;
  instruction.read = expr.read;
  instruction.op = expr.op;
  instruction.function = expr.function;
  instruction.comparison = expr.comparison;
  if (expr.kind == ExprKind::index) {
    const auto found = std::find(indices.begin(), indices.end(), expr.index);
    PF_INTERNAL_CHECK(found != indices.end(), "reference: the value of " + expr.index + ", not an index of the statement");
    instruction.index = static_cast<int>(found - indices.begin());
  }
  code.push_back(instruction);
}

}  // namespace

std::vector<Instruction> postfix_code(const Statement& statement) {
  std::vector<Instruction> code;
  flatten(statement.expr, statement.index_names(), code);
  return code;
}

StatementWalk::StatementWalk(const Program& program, const Statement& statement) : names_(statement.index_names()) {
  write_ = linearize(program, statement, statement.write);
  for (const Access& access : statement.reads) reads_.push_back(linearize(program, statement, access));
  std::size_t reduction_rank = 0;
  for (const IterationIndex& index : statement.indices) {
    extents_.push_back(bound_extent(program, index.extent));
    if (index.is_reduction) ++reduction_rank;
    else PF_INTERNAL_CHECK(reduction_rank == 0, "reference: reduction index before " + index.name);
  }
  point_.assign(extents_.size(), 0);
  outer_rank_ = extents_.size() - reduction_rank;
}

bool StatementWalk::empty() const {
  return std::any_of(extents_.begin(), extents_.end(), [](std::int64_t extent) { return extent <= 0; });
}

std::int64_t StatementWalk::reduction_points() const {
  std::int64_t points = 1;
  for (std::size_t dim = outer_rank_; dim < extents_.size(); ++dim) points *= extents_[dim];
  return points;
}

StatementWalk::LinearAccess StatementWalk::linearize(const Program& program, const Statement& statement,
                                                     const Access& access) {
  const Tensor* tensor = program.find_tensor(access.tensor);
  PF_INTERNAL_CHECK(tensor != nullptr, "reference: unknown tensor " + access.tensor);
  const std::vector<std::int64_t> shape = bound_shape(program, *tensor);
  LinearAccess linear;
  linear.coefficients.assign(statement.indices.size(), 0);
  std::int64_t stride = 1;
  for (std::size_t dim = shape.size(); dim-- > 0;) {
    const AffineIndex subscript =
        access.subscripts.empty() ? AffineIndex::plain(access.indices[dim]) : access.subscripts[dim];
    Subscript followed{std::vector<std::int64_t>(statement.indices.size(), 0), subscript.constant, shape[dim]};
    for (const auto& term : subscript.terms) {
      const auto& [name, coefficient] = term;
      const std::string& term_name = name;  // clang 14 cannot capture a structured binding
      const auto& names = statement.indices;
      const auto found = std::find_if(names.begin(), names.end(),
                                      [&](const IterationIndex& index) { return index.name == term_name; });
      PF_INTERNAL_CHECK(found != names.end(),
                        "reference: index " + name + " of " + access.tensor + " not in " + statement.id);
      const auto position = static_cast<std::size_t>(found - names.begin());
      linear.coefficients[position] += stride * coefficient;
      followed.coefficients[position] = coefficient;
    }
    linear.offset += stride * subscript.constant;
    if (subscript.is_gather())
      linear.gathered.push_back(GatheredSubscript{followed, subscript.gather, dim, stride});
    if (access.outside_value) linear.subscripts.push_back(std::move(followed));
    stride *= shape[dim];
  }
  return linear;
}

// Moves the point to the next point of dimensions [first, last) (an odometer), with every
// access offset; false (and those dimensions at 0 again) after the last one.
bool StatementWalk::advance(std::size_t first, std::size_t last) {
  for (std::size_t dim = last; dim-- > first;) {
    if (point_[dim] + 1 < extents_[dim]) {
      ++point_[dim];
      shift(dim, 1);
      return true;
    }
    shift(dim, -point_[dim]);
    point_[dim] = 0;
  }
  return false;
}

void StatementWalk::shift(std::size_t dim, std::int64_t steps) {
  write_.offset += steps * write_.coefficients[dim];
  for (LinearAccess& read : reads_) {
    read.offset += steps * read.coefficients[dim];
    for (Subscript& subscript : read.subscripts) subscript.value += steps * subscript.coefficients[dim];
    for (GatheredSubscript& gathered : read.gathered)
      gathered.affine.value += steps * gathered.affine.coefficients[dim];
  }
}

std::vector<StatementWalk::Gather> StatementWalk::gathers(int read) const {
  std::vector<Gather> result;
  for (const GatheredSubscript& gathered : reads_[static_cast<std::size_t>(read)].gathered)
    result.push_back(Gather{gathered.index_read, gathered.dim, gathered.affine.value, gathered.affine.extent,
                            gathered.stride});
  return result;
}

std::string StatementWalk::point_text() const {
  std::string text;
  for (std::size_t dim = 0; dim < names_.size(); ++dim)
    text += (text.empty() ? "" : ", ") + names_[dim] + " = " + std::to_string(point_[dim]);
  return text;
}

bool StatementWalk::subscripts_inside(const LinearAccess& access) {
  return std::all_of(access.subscripts.begin(), access.subscripts.end(), [](const Subscript& subscript) {
    return subscript.value >= 0 && subscript.value < subscript.extent;
  });
}

}  // namespace polyfuse::reference
