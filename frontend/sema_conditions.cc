// DefChecker's conditions and index values (def_checker.h): comparisons, `&&`, `||`, `!`
// and `?:` (condition.h says which operands are conditions and which are values), casts
// to f32, and index variables used as values.
#include <fmt/format.h>

#include <algorithm>

#include "frontend/def_checker.h"

namespace polyfuse::sema_detail {

namespace {

// How a condition's operator is written, for messages.
std::string operator_text(const ast::Expr& expr) {
  switch (expr.kind) {
    case ast::Expr::Kind::compare: return std::string(to_string(expr.comparison));
    case ast::Expr::Kind::logical: return std::string(2, expr.op);
    case ast::Expr::Kind::logical_not: return "!";
    default: return "?:";
  }
}

}  // namespace

Expr DefChecker::lower_value(const ast::Expr& expr, StatementState& state) {
  Expr value = lower(expr, state);
  if (is_condition(value))
    error(ast::start_location(expr),
          fmt::format("{} is a condition (true or false), not a value: a condition is the first operand of "
                      "'?:' (write '{} ? 1 : 0' for a number)", quote_name(ast::to_source(expr)), ast::to_source(expr)),
          &state);
  return value;
}

Expr DefChecker::lower_condition(const ast::Expr& expr, StatementState& state) {
  // The operands: values for a comparison and for the branches of `?:`, conditions else.
  std::vector<Expr> operands;
  for (std::size_t i = 0; i < expr.args.size(); ++i) {
    const ast::Expr& arg = expr.args[i];
    const bool wants_condition = expr.kind == ast::Expr::Kind::logical || expr.kind == ast::Expr::Kind::logical_not ||
                                 (expr.kind == ast::Expr::Kind::select && i == 0);
    if (!wants_condition) {
      operands.push_back(lower_value(arg, state));
      continue;
    }
    Expr operand = lower(arg, state);
    if (!is_condition(operand))
      error(ast::start_location(arg),
            fmt::format("{} is a value, not a condition: the {} of '{}' is a comparison ('<', '<=', '>', '>=', "
                        "'==', '!=') or a combination of comparisons with '&&', '||' and '!'",
                        quote_name(ast::to_source(arg)), expr.kind == ast::Expr::Kind::select ? "condition" : "operand",
                        operator_text(expr)),
            &state);
    operands.push_back(std::move(operand));
  }
  switch (expr.kind) {
    case ast::Expr::Kind::compare:
      return Expr::compare_node(expr.comparison, std::move(operands[0]), std::move(operands[1]), expr.location);
    case ast::Expr::Kind::logical:
      return Expr::condition_node(expr.op == '&' ? ExprKind::logical_and : ExprKind::logical_or, std::move(operands),
                                  expr.location);
    case ast::Expr::Kind::logical_not:
      return Expr::condition_node(ExprKind::logical_not, std::move(operands), expr.location);
    default: return Expr::condition_node(ExprKind::select, std::move(operands), expr.location);
  }
}

Expr DefChecker::lower_cast(const ast::Expr& expr, StatementState& state) {
  error(expr.location,
        fmt::format("the cast {}(..) is not supported: {}; the conversions are f16(x), bf16(x) and f32(x)", expr.name,
                    unsupported_type_reason(expr.name).value_or(
                        !parse_element_type(expr.name)       ? "not a type"
                        : is_fp8(*parse_element_type(expr.name)) ? "FP8 values are inputs only, never computed"
                                                                 : "conversions to integer types are not supported")),
        &state);
  return Expr::constant_node(0, expr.location);
}

bool DefChecker::check_index_values(const std::vector<std::string>& lhs_indices, const ast::Statement& statement,
                                    StatementState& state) {
  for (const auto& index_value : state.index_values) {
    // (not a structured binding: clang 14 cannot capture one in the lambdas below)
    const std::string& name = index_value.first;
    const auto& location = index_value.second;
    const auto is = [&](const std::vector<std::string>& names) {
      return std::find(names.begin(), names.end(), name) != names.end();
    };
    if (is(lhs_indices) || is(state.rhs_order)) continue;
    const bool ranged = std::any_of(statement.ranges.begin(), statement.ranges.end(),
                                    [&](const ast::RangeClause& range) { return range.index == name; });
    if (ranged) {  // an index that only a `where` clause gives a range to (a reduction index)
      state.rhs_order.push_back(name);
      continue;
    }
    error(location, fmt::format("{} is used as a value, but it is neither a size nor an index of this statement "
                                "(an index variable is a value where it also indexes a tensor of the statement or "
                                "has a range from 'where {} in 0:N')", quote_name(name), name), &state);
  }
  return !state.failed;
}

}  // namespace polyfuse::sema_detail
