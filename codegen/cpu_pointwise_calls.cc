#include "codegen/cpu_pointwise_calls.h"

#include <map>
#include <set>

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

// An operation one generated loop can do itself, as kernels/cpu's Binary and Unary (and negation)
// do it: one IEEE operation (the generated code is built with -ffp-contract=off), or relu and abs
// (exact: a select and a cleared sign bit).
bool is_arithmetic(const Expr& expr) {
  if (expr.kind == ExprKind::negate || expr.kind == ExprKind::binary) return true;
  if (expr.kind != ExprKind::call) return false;
  return expr.function == Function::max || expr.function == Function::min || expr.function == Function::relu ||
         expr.function == Function::abs;
}

// Element (i, j) of the block through `view` (a C++ expression; i and j are `row` and `col`).
std::string element(const CpuOperandView& view, const std::string& row, const std::string& col) {
  const bool identifier = view.pointer.find_first_of(" +-*&()[]") == std::string::npos;
  const std::string base = identifier ? view.pointer : "(" + view.pointer + ")";
  const auto times_ld = [&](const std::string& index) { return view.ld == "1" ? index : index + " * " + view.ld; };
  if (view.broadcast == "Broadcast::scalar") return base + "[0]";
  if (view.broadcast == "Broadcast::col_vector") return base + "[" + times_ld(row) + "]";
  if (view.broadcast == "Broadcast::row_vector") return base + "[" + times_ld(col) + "]";
  if (view.layout == "Layout::row_major") return base + "[" + times_ld(row) + " + " + col + "]";
  return base + "[" + row + " + " + times_ld(col) + "]";
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
  // `loops`: whether a loop of the generated code may compute arithmetic (evaluate_as_loop).
  ExpressionEmitter(const CpuExpressionSink& sink, const CpuPointwise& pointwise, bool loops)
      : sink_(sink), pointwise_(pointwise), loops_(loops) {}

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
          if (evaluate_call_of_loop(op, inner, target, target_is_scratch, shape)) return;
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

  // Emits `expr` into `target` as one loop over the block when that saves passes: its arithmetic
  // on values that vary with both the row and the column in one expression per element; every
  // other part of the tree (a transcendental function, a value of the row or the column alone,
  // an f16 or bf16 read) evaluated by calls first, into scratch blocks or vectors the loop reads,
  // and an f16 or bf16 target rounded by a call after it. The same operations on the same values
  // as the calls, so the same bits. False, emitting nothing, otherwise.
  bool evaluate_as_loop(const Expr& expr, const CpuOperandView& target) {
    if (!floating(target.type) || target.broadcast != "Broadcast::matrix") return false;
    if (loop_passes(expr, target.type) >= call_passes(expr)) return false;
    const std::string row = sink_.variable("row"), col = sink_.variable("col");
    const std::string value = loop_term(expr, row, col);
    // An f16 or bf16 target: the loop's f32 values in a scratch block, then rounded by one call.
    const CpuOperandView f32_target = target.type == ElementType::f32 ? target : sink_.scratch();
    const std::string written = element(at_block(f32_target, "float*"), row, col);
    sink_.line("for (int64_t " + row + " = 0; " + row + " < rows; ++" + row + ")  // the arithmetic, one pass\n" +
               "    for (int64_t " + col + " = 0; " + col + " < cols; ++" + col + ")\n" + "      " + written +
               " = " + value + ";");
    if (target.type != ElementType::f32)
      emit_unary_call(sink_, pointwise_.statement, "store", "identity", f32_target, target);
    return true;
  }

 private:
  // A node the loop computes: arithmetic on values varying with both the row and the column.
  bool in_loop(const Expr& expr) { return is_arithmetic(expr) && varies(expr) == Varies::both; }

  // Passes over the block of `expr` as a loop into a `target_type` block: one, and one for each
  // f16 or bf16 block it reads (widened) and for a narrow target (rounded); a large number where
  // the loop cannot compute it (against call_passes).
  int loop_passes(const Expr& expr, ElementType target_type) {
    if (!in_loop(expr) || !loop_reads_floating(expr)) return 1 << 20;
    std::set<std::string> narrow_blocks;
    narrow_block_reads(expr, narrow_blocks);
    return 1 + static_cast<int>(narrow_blocks.size()) + (target_type == ElementType::f32 ? 0 : 1);
  }

  // op(x), x arithmetic the loop computes in fewer passes than the calls with op fused into the
  // last (log(0.001 + 0.998 * abs(P)): abs, *, then + and log, three; the loop and log, two):
  // x by one loop into the target (when intermediate values may go there) or a scratch block,
  // then op by one call from it. False, emitting nothing, otherwise.
  bool evaluate_call_of_loop(const std::string& op, const Expr& x, const CpuOperandView& target,
                             bool target_is_scratch, const CpuCallShape& shape) {
    if (!loops_ || shape.m != "rows" || shape.n != "cols" || target.broadcast != "Broadcast::matrix") return false;
    if (loop_passes(x, ElementType::f32) + 1 >= call_passes(x) + (is_binary(x) ? 0 : 1)) return false;
    const CpuOperandView staged = target_is_scratch ? target : sink_.scratch();
    const bool looped = evaluate_as_loop(x, staged);
    PF_INTERNAL_CHECK(looped, "cpu block: a loop the pass count allowed was not emitted");
    emit_unary_call(sink_, pointwise_.statement, op, op, staged, target, shape);
    return true;
  }

  // Passes the calls make over the block for the part of `expr` the loop would compute: one an
  // operation, but for a unary operation on a binary one (relu(x + y), -(x * y): Binary's post,
  // in the same pass).
  int call_passes(const Expr& expr) {
    if (!in_loop(expr)) return 0;
    const bool post = expr.operands.size() == 1 && is_binary(expr.operands[0]);
    int count = post ? 0 : 1;
    for (const Expr& operand : expr.operands) count += call_passes(operand);
    return count;
  }

  static bool floating(ElementType type) {
    return type == ElementType::f32 || type == ElementType::f16 || type == ElementType::bf16;
  }

  // Whether the tensors the loop itself reads are f32, f16 or bf16 (the calls compute the rest).
  bool loop_reads_floating(const Expr& expr) {
    if (expr.kind == ExprKind::read) return floating(sink_.view(pointwise_.reads.at(expr.read)).type);
    if (!in_loop(expr)) return true;
    for (const Expr& operand : expr.operands)
      if (!loop_reads_floating(operand)) return false;
    return true;
  }

  // The f16 and bf16 blocks (reads varying with the row and the column) the loop reads.
  void narrow_block_reads(const Expr& expr, std::set<std::string>& blocks) {
    if (expr.kind == ExprKind::read) {
      const CpuOperandView view = sink_.view(pointwise_.reads.at(expr.read));
      if (view.type != ElementType::f32 && view.broadcast == "Broadcast::matrix") blocks.insert(view.pointer);
      return;
    }
    if (!in_loop(expr)) return;
    for (const Expr& operand : expr.operands) narrow_block_reads(operand, blocks);
  }

  // A read of f16 or bf16 values as f32 ones: widened (exactly) by one call into a scratch block,
  // or its first column (row, element) for a value of the row (column, block).
  CpuOperandView widened(const Expr& read) {
    const CpuOperandView narrow = leaf(read);
    const auto known = widened_.find(narrow.pointer + " " + narrow.broadcast);  // a read used twice: once
    if (known != widened_.end()) return known->second;
    CpuOperandView wide = sink_.scratch();
    const Varies along = varies(read);
    const CpuCallShape shape = along == Varies::both     ? CpuCallShape{}
                               : along == Varies::row    ? CpuCallShape{"rows", "1"}
                               : along == Varies::column ? CpuCallShape{"1", "cols"}
                                                         : CpuCallShape{"1", "1"};
    if (along == Varies::row) wide.ld = "1";
    emit_unary_call(sink_, pointwise_.statement, "widen", "identity", narrow, wide, shape);
    wide.ld = along == Varies::both ? "cols" : "1";
    wide.broadcast = along == Varies::both     ? "Broadcast::matrix"
                     : along == Varies::row    ? "Broadcast::col_vector"
                     : along == Varies::column ? "Broadcast::row_vector"
                                               : "Broadcast::scalar";
    widened_.emplace(narrow.pointer + " " + narrow.broadcast, wide);
    return wide;
  }

  // The loop's expression for `expr` at (row, col); what the loop does not compute is evaluated
  // by calls now (operand()) and read there.
  std::string loop_term(const Expr& expr, const std::string& row, const std::string& col) {
    if (expr.kind == ExprKind::constant) return float_literal(expr.value);
    if (expr.kind == ExprKind::read && sink_.view(pointwise_.reads.at(expr.read)).type != ElementType::f32)
      return element(widened(expr), row, col);
    if (!in_loop(expr)) return element(at_block(operand(expr, nullptr, CpuCallShape{}), "const float*"), row, col);
    if (expr.kind == ExprKind::negate) return "(-" + loop_term(expr.operands[0], row, col) + ")";
    const std::string left = loop_term(expr.operands[0], row, col);
    if (expr.kind == ExprKind::call && expr.function == Function::relu) return "binary_max(" + left + ", 0.0f)";
    if (expr.kind == ExprKind::call && expr.function == Function::abs) return "unary_abs(" + left + ")";
    const std::string right = loop_term(expr.operands[1], row, col);
    if (expr.kind == ExprKind::call) return std::string(expr.function == Function::max ? "binary_max(" : "binary_min(") + left + ", " + right + ")";
    static const char* const kSymbols[] = {" + ", " - ", " * ", " / "};  // frontend's BinaryOp order
    return "(" + left + kSymbols[static_cast<int>(expr.op)] + right + ")";
  }

  // `view` with its pointer a local of the loop's (`const float* const X_block = X + m0 * 64 + n0;`,
  // declared once) when it is an expression, so that the loop reads `X_block[row * 64 + col]`.
  CpuOperandView at_block(CpuOperandView view, const std::string& type) {
    if (view.pointer.find_first_of(" +-*&()[]") == std::string::npos) return view;
    view.pointer = sink_.block_pointer(view.pointer, type);
    return view;
  }

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
  const bool loops_;
  std::map<std::string, CpuOperandView> widened_;  // widened()'s blocks by the read's pointer and broadcast
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
                     bool target_is_scratch, bool loops) {
  ExpressionEmitter emitter(sink, pointwise, loops);
  if (loops && emitter.evaluate_as_loop(pointwise.expr, target)) return;
  emitter.evaluate(pointwise.expr, target, target_is_scratch);
}

std::string CpuBlockPointers::local(const std::string& pointer, const std::string& type, const CpuNames& names,
                                    const std::function<void(const std::string&)>& line) {
  const auto found = by_pointer_.find(pointer);
  if (found != by_pointer_.end() && (found->second.second == type || found->second.second == "float*"))
    return found->second.first;
  const std::string tensor = pointer.substr(0, pointer.find_first_of(" +-*&()[]"));
  std::string name = names.variable(tensor + "_block");
  for (int count = 2; !taken_.insert(name).second; ++count) name = names.variable(tensor + "_block" + std::to_string(count));
  line(type + " const " + name + " = " + pointer + ";");
  by_pointer_[pointer] = {name, type};
  return name;
}

}  // namespace polyfuse
