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

// What a value varies with over the block: nothing (a literal, a scalar), the row, the column, or both.
enum class Varies { nothing, row, column, both };

Varies combined(Varies a, Varies b) {
  if (a == Varies::nothing) return b;
  if (b == Varies::nothing || a == b) return a;
  return Varies::both;
}

class ExpressionEmitter {
 public:
  ExpressionEmitter(const CpuExpressionSink& sink, const CpuPointwise& pointwise) : sink_(sink), pointwise_(pointwise) {}

  // Emits calls computing `expr` into `target` over `shape`; `target_is_scratch` says whether
  // intermediate values may go there too.
  void evaluate(const Expr& expr, const CpuOperandView& target, bool target_is_scratch, const CpuCallShape& shape = {}) {
    const CpuOperandView* spare = target_is_scratch ? &target : nullptr;
    const std::string& statement = pointwise_.statement;
    switch (expr.kind) {
      case ExprKind::read:
      case ExprKind::constant:
        emit_unary_call(sink_, statement, "identity", "identity", leaf(expr), target, shape);
        return;
      case ExprKind::negate:
      case ExprKind::call:
        if (expr.kind == ExprKind::negate || arity(expr.function) == 1) {
          const std::string op = unary_op(expr);
          const Expr& inner = expr.operands[0];
          if (is_binary(inner)) {  // op(x . y): one pass, the op applied before the store
            const CpuOperandView left = operand(inner.operands[0], spare, shape);
            const CpuOperandView right = operand(inner.operands[1], nullptr, shape);
            emit_binary_call(sink_, statement, binary_op(inner), left, right, target, op, shape);
            return;
          }
          emit_unary_call(sink_, statement, op, op, operand(inner, spare, shape), target, shape);
          return;
        }
        [[fallthrough]];
      case ExprKind::binary: {
        const CpuOperandView left = operand(expr.operands[0], spare, shape);
        const CpuOperandView right = operand(expr.operands[1], nullptr, shape);
        emit_binary_call(sink_, statement, binary_op(expr), left, right, target, "", shape);
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

  // What `expr` varies with over the block.
  Varies varies(const Expr& expr) {
    if (expr.kind == ExprKind::constant) return Varies::nothing;
    if (expr.kind == ExprKind::read) {
      const std::string broadcast = sink_.view(pointwise_.reads.at(expr.read)).broadcast;
      return broadcast == "Broadcast::scalar"       ? Varies::nothing
             : broadcast == "Broadcast::col_vector" ? Varies::row
             : broadcast == "Broadcast::row_vector" ? Varies::column
                                                    : Varies::both;
    }
    Varies result = Varies::nothing;
    for (const Expr& operand : expr.operands) result = combined(result, varies(operand));
    return result;
  }

  // `expr` as an operand over `shape`: a leaf directly; on the block, a value of the row (of the
  // column) alone computed once per row (column) into a scratch block's first column (row) and
  // read as a broadcast vector; anything else evaluated into `spare` (when given) or a fresh
  // scratch block.
  CpuOperandView operand(const Expr& expr, const CpuOperandView* spare, const CpuCallShape& shape) {
    if (is_leaf(expr)) return leaf(expr);
    const bool block = shape.m == "rows" && shape.n == "cols";
    if (const Varies along = varies(expr); block && (along == Varies::row || along == Varies::column)) {
      const bool per_row = along == Varies::row;
      CpuOperandView vector = sink_.scratch();
      vector.ld = per_row ? "1" : "cols";  // rows x 1 with rows 1 apart; 1 x cols
      evaluate(expr, vector, true, per_row ? CpuCallShape{"rows", "1"} : CpuCallShape{"1", "cols"});
      vector.ld = "1";
      vector.broadcast = per_row ? "Broadcast::col_vector" : "Broadcast::row_vector";
      return vector;
    }
    const CpuOperandView target = spare ? *spare : sink_.scratch();
    evaluate(expr, target, true, shape);
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
                     const std::string& op, const CpuOperandView& in, const CpuOperandView& out,
                     const CpuCallShape& shape) {
  const std::string name = sink.object_name(statement, what);
  sink.line("static const Unary " + name + "({.m = " + shape.m + ", .n = " + shape.n + ", .op = UnaryOp::" + op +
            ",\n      .in = " + in.operand() + ",\n      .out = " + out.operand() + "});");
  sink.line(name + "(" + in.pointer + ", " + out.pointer + ", " + in.ld + ", " + out.ld + ");");
}

void emit_binary_call(const CpuCallSink& sink, const std::string& statement, const std::string& op,
                      const CpuOperandView& in0, const CpuOperandView& in1, const CpuOperandView& out,
                      const std::string& post, const CpuCallShape& shape) {
  const std::string name = sink.object_name(statement, post.empty() ? op : op + "_" + post);
  sink.line("static const Binary " + name + "({.m = " + shape.m + ", .n = " + shape.n + ", .op = BinaryOp::" + op +
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
