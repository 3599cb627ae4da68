// DefChecker's gathers and integer arithmetic (def_checker.h): an integer tensor read inside
// another tensor's subscript (`W(I(b), d)`, `N(Idx(k) + l, c)`), and the integer divisions
// polyfuse refuses.
#include <fmt/format.h>

#include "frontend/def_checker.h"
#include "frontend/value_type.h"

namespace polyfuse::sema_detail {

bool DefChecker::to_gather(const ast::Expr& arg, const Tensor& index, AffineIndex& out, StatementState& state) {
  if (!is_integer(index.type)) {
    error(arg.location, fmt::format("tensor {} is read inside a subscript, but its elements are {}: an index tensor "
                                    "(a gather) holds integers (declare it int32, int64 or uint8)",
                                    quote_name(index.name), to_string(index.type)), &state);
    return false;
  }
  if (state.in_gather) {
    error(arg.location, fmt::format("index tensor {} is read inside another index tensor's subscript; gathers do "
                                    "not nest", quote_name(index.name)), &state);
    return false;
  }
  state.in_gather = true;
  const Expr read = lower_call(arg, state);
  state.in_gather = false;
  if (read.kind != ExprKind::read) return false;  // reported
  state.reads.at(static_cast<std::size_t>(read.read)).is_index = true;
  out.gather = read.read;
  out.gather_text = ast::to_source(arg);
  return true;
}

bool DefChecker::check_integer_division(const Expr& expr, const Statement& statement, StatementState& state) {
  for (const Expr& operand : expr.operands)
    if (!check_integer_division(operand, statement, state)) return false;
  if (expr.kind != ExprKind::binary || expr.op != BinaryOp::div) return true;
  if (!is_integer(value_type(expr.operands[0], program_, statement.reads)) ||
      !is_integer(value_type(expr.operands[1], program_, statement.reads)))
    return true;
  error(expr.location, "this divides two integers: Tensor Comprehensions truncates such a quotient, polyfuse computes "
                       "in f32 and does not; convert an operand with float(..) (or write a float literal, '2.0')",
        &state);
  return false;
}

}  // namespace polyfuse::sema_detail
