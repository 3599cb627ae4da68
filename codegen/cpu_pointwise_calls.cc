#include "codegen/cpu_pointwise_calls.h"

#include "codegen/cpu_names.h"
#include "frontend/diagnostics.h"

namespace polyfuse {
namespace {

std::string unary_op(const Expr& expr) {
  if (expr.kind == ExprKind::negate) return "neg";
  return cpu_op_name(expr.function);  // relu sigmoid tanh gelu exp sqrt ... gelu_tanh
}

std::string binary_op(const Expr& expr) {
  if (expr.kind == ExprKind::call) return cpu_op_name(expr.function);  // max min
  switch (expr.op) {
    case BinaryOp::add: return "add";
    case BinaryOp::sub: return "sub";
    case BinaryOp::mul: return "mul";
    case BinaryOp::div: return "div";
  }
  return "?";
}

// A binary operation node: x + y, max(x, y).
bool is_binary(const Expr& expr) {
  return expr.kind == ExprKind::binary || (expr.kind == ExprKind::call && arity(expr.function) == 2);
}

bool is_leaf(const Expr& expr) {
  return expr.kind == ExprKind::read || expr.kind == ExprKind::constant;
}

class ExpressionEmitter {
 public:
  ExpressionEmitter(const CpuExpressionSink& sink, const CpuPointwise& pointwise) : sink_(sink), pointwise_(pointwise) {}

  // Emits calls computing `expr` into `target`; `target_is_scratch` says whether
  // intermediate values may go there too.
  void evaluate(const Expr& expr, const CpuOperandView& target, bool target_is_scratch) {
    const CpuOperandView* spare = target_is_scratch ? &target : nullptr;
    const std::string& statement = pointwise_.statement;
    switch (expr.kind) {
      case ExprKind::read:
      case ExprKind::constant:
        emit_unary_call(sink_, statement, "identity", "identity", leaf(expr), target);
        return;
      case ExprKind::negate:
      case ExprKind::call:
        if (expr.kind == ExprKind::negate || arity(expr.function) == 1) {
          const std::string op = unary_op(expr);
          const Expr& inner = expr.operands[0];
          if (is_binary(inner)) {  // op(x . y): one pass, the op applied before the store
            const CpuOperandView left = operand(inner.operands[0], spare);
            const CpuOperandView right = operand(inner.operands[1], nullptr);
            emit_binary_call(sink_, statement, binary_op(inner), left, right, target, op);
            return;
          }
          emit_unary_call(sink_, statement, op, op, operand(inner, spare), target);
          return;
        }
        [[fallthrough]];
      case ExprKind::binary: {
        const CpuOperandView left = operand(expr.operands[0], spare);
        const CpuOperandView right = operand(expr.operands[1], nullptr);
        emit_binary_call(sink_, statement, binary_op(expr), left, right, target);
        return;
      }
      default: PF_INTERNAL_CHECK(false, "cpu block: a condition or an index value (cpu_plan refuses them)");
    }
  }

 private:
  // A leaf as an operand: a tensor access, or a literal as a broadcast scalar.
  CpuOperandView leaf(const Expr& expr) {
    if (expr.kind == ExprKind::read) return sink_.view(pointwise_.reads.at(expr.read));
    const std::string name = sink_.object_name(pointwise_.statement, "c");
    sink_.line("static constexpr float " + name + " = " + float_literal(expr.value) + ";");
    CpuOperandView constant;
    constant.pointer = "&" + name;
    constant.broadcast = "Broadcast::scalar";
    return constant;
  }

  // `expr` as an operand: a leaf directly, anything else evaluated into `spare` (when
  // given) or a fresh scratch block.
  CpuOperandView operand(const Expr& expr, const CpuOperandView* spare) {
    if (is_leaf(expr)) return leaf(expr);
    const CpuOperandView target = spare ? *spare : sink_.scratch();
    evaluate(expr, target, true);
    return target;
  }

  const CpuExpressionSink& sink_;
  const CpuPointwise& pointwise_;
};

}  // namespace

std::string CpuOperandView::operand() const {
  return "{" + layout + ", " + cxx_dtype(type) + ", " + broadcast + "}";
}

void emit_unary_call(const CpuCallSink& sink, const std::string& statement, const std::string& what,
                     const std::string& op, const CpuOperandView& in, const CpuOperandView& out) {
  const std::string name = sink.object_name(statement, what);
  sink.line("static const Unary " + name + "({.m = rows, .n = cols, .op = UnaryOp::" + op +
            ",\n      .in = " + in.operand() + ",\n      .out = " + out.operand() + "});");
  sink.line(name + "(" + in.pointer + ", " + out.pointer + ", " + in.ld + ", " + out.ld + ");");
}

void emit_binary_call(const CpuCallSink& sink, const std::string& statement, const std::string& op,
                      const CpuOperandView& in0, const CpuOperandView& in1, const CpuOperandView& out,
                      const std::string& post) {
  const std::string name = sink.object_name(statement, post.empty() ? op : op + "_" + post);
  sink.line("static const Binary " + name + "({.m = rows, .n = cols, .op = BinaryOp::" + op +
            ",\n      .in0 = " + in0.operand() + ",\n      .in1 = " + in1.operand() +
            ",\n      .out = " + out.operand() + (post.empty() ? std::string() : ", .post = UnaryOp::" + post) + "});");
  sink.line(name + "(" + in0.pointer + ", " + in1.pointer + ", " + out.pointer + ", " + in0.ld + ", " + in1.ld + ", " +
            out.ld + ");");
}

void emit_expression(const CpuExpressionSink& sink, const CpuPointwise& pointwise, const CpuOperandView& target,
                     bool target_is_scratch) {
  ExpressionEmitter(sink, pointwise).evaluate(pointwise.expr, target, target_is_scratch);
}

}  // namespace polyfuse
