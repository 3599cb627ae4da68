#include "codegen/packed_prologue.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "codegen/cuda_kernel_layout.h"

namespace polyfuse {
namespace {

// The packed text of `e`, or nullopt; `rounds` is set when `e` holds a rounding operation.
struct PackedText {
  const std::vector<std::string>& names;  // of read 0 (the element) and of each operand
  std::string type;                       // "__half" or "__nv_bfloat16"

  std::optional<std::string> operator()(const Expr& e, bool& rounds) const {
    rounds = false;
    std::vector<std::string> args;
    bool any_rounds = false;
    for (const Expr& operand : e.operands) {
      bool r = false;
      std::optional<std::string> text = (*this)(operand, r);
      if (!text) return std::nullopt;
      args.push_back(*text);
      any_rounds = any_rounds || r;
    }
    switch (e.kind) {
      case ExprKind::read: return names.at(static_cast<std::size_t>(e.read));
      case ExprKind::constant:
        if (e.value != 0) return std::nullopt;  // 0 is exact in every type; other literals are not checked
        return std::string("pf::x2::zero()");
      case ExprKind::negate: rounds = any_rounds; return call("neg", args);
      case ExprKind::binary:
        if (e.op == BinaryOp::div || any_rounds) return std::nullopt;  // one rounding, at the top
        rounds = true;
        return call(e.op == BinaryOp::add ? "add" : e.op == BinaryOp::sub ? "sub" : "mul", args);
      case ExprKind::call:
        rounds = any_rounds;
        switch (e.function) {
          case Function::relu: return call("relu", args);
          case Function::abs: return call("abs", args);
          case Function::max: return call("max", args);
          case Function::min: return call("min", args);
          default: return std::nullopt;
        }
      default: return std::nullopt;
    }
  }

  std::string call(const char* op, const std::vector<std::string>& args) const {
    return fmt::format("pf::x2::{}<{}>({})", op, type, fmt::join(args, ", "));
  }
};

}  // namespace

std::optional<std::string> packed_prologue(const OperandPrologue& prologue, ElementType type) {
  if (type != ElementType::f16 && type != ElementType::bf16) return std::nullopt;
  std::vector<std::string> names = {"x"}, parameters = {"unsigned x"};
  for (const PrologueOperand& operand : prologue.operands) {
    names.push_back(prologue_operand_value(operand));
    parameters.push_back("unsigned " + names.back());
  }
  bool rounds = false;
  const std::optional<std::string> body = PackedText{names, cuda_type(type)}(prologue.expr, rounds);
  if (!body) return std::nullopt;
  return fmt::format("[]({}) {{ return {}; }}", fmt::join(parameters, ", "), *body);
}

}  // namespace polyfuse
