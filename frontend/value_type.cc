#include "frontend/value_type.h"

#include "frontend/diagnostics.h"

namespace polyfuse {

ElementType value_type(const Expr& expr, const Program& program, const std::vector<Access>& reads) {
  const auto operand = [&](std::size_t i) { return value_type(expr.operands.at(i), program, reads); };
  switch (expr.kind) {
    case ExprKind::constant: return expr.integer ? ElementType::i32 : ElementType::f32;
    case ExprKind::read: {
      const Tensor* tensor = program.find_tensor(reads.at(static_cast<std::size_t>(expr.read)).tensor);
      PF_INTERNAL_CHECK(tensor != nullptr, "value_type: unknown tensor");
      return tensor->type;
    }
    case ExprKind::index:
    case ExprKind::compare:
    case ExprKind::logical_and:
    case ExprKind::logical_or:
    case ExprKind::logical_not: return ElementType::i32;
    case ExprKind::negate: return operand(0);
    case ExprKind::binary: return expr.op == BinaryOp::div ? ElementType::f32 : common_type(operand(0), operand(1));
    case ExprKind::select: return common_type(operand(1), operand(2));
    case ExprKind::call:
      if (const std::optional<ElementType> converted = conversion_type(expr.function)) return *converted;
      if (expr.function == Function::max || expr.function == Function::min) return common_type(operand(0), operand(1));
      if (expr.function == Function::abs) return operand(0);
      return ElementType::f32;
  }
  return ElementType::f32;
}

}  // namespace polyfuse
