#include "frontend/expr.h"

#include <algorithm>
#include <charconv>
#include <functional>

namespace polyfuse {

Expr Expr::constant_node(double value, SourceLocation where) {
  Expr e;
  e.kind = ExprKind::constant;
  e.value = value;
  e.location = where;
  return e;
}

Expr Expr::read_node(int index, SourceLocation where) {
  Expr e;
  e.kind = ExprKind::read;
  e.read = index;
  e.location = where;
  return e;
}

Expr Expr::negate_node(Expr operand, SourceLocation where) {
  Expr e;
  e.kind = ExprKind::negate;
  e.location = where;
  e.operands.push_back(std::move(operand));
  return e;
}

Expr Expr::binary_node(BinaryOp op, Expr lhs, Expr rhs, SourceLocation where) {
  Expr e;
  e.kind = ExprKind::binary;
  e.op = op;
  e.location = where;
  e.operands.push_back(std::move(lhs));
  e.operands.push_back(std::move(rhs));
  return e;
}

Expr Expr::call_node(Function function, std::vector<Expr> arguments, SourceLocation where) {
  Expr e;
  e.kind = ExprKind::call;
  e.function = function;
  e.location = where;
  e.operands = std::move(arguments);
  return e;
}

Expr Expr::index_node(std::string name, SourceLocation where) {
  Expr e;
  e.kind = ExprKind::index;
  e.index = std::move(name);
  e.location = where;
  return e;
}

Expr Expr::compare_node(Comparison comparison, Expr lhs, Expr rhs, SourceLocation where) {
  Expr e = binary_node(BinaryOp::add, std::move(lhs), std::move(rhs), where);
  e.kind = ExprKind::compare;
  e.comparison = comparison;
  return e;
}

Expr Expr::condition_node(ExprKind kind, std::vector<Expr> operands, SourceLocation where) {
  Expr e;
  e.kind = kind;
  e.location = where;
  e.operands = std::move(operands);
  return e;
}

bool is_condition(const Expr& expr) {
  return expr.kind == ExprKind::compare || expr.kind == ExprKind::logical_and ||
         expr.kind == ExprKind::logical_or || expr.kind == ExprKind::logical_not;
}

bool contains_kind(const Expr& expr, ExprKind kind) {
  if (expr.kind == kind) return true;
  for (const Expr& operand : expr.operands)
    if (contains_kind(operand, kind)) return true;
  return false;
}

std::vector<std::string> index_values(const Expr& expr) {
  std::vector<std::string> names;
  const std::function<void(const Expr&)> visit = [&](const Expr& e) {
    if (e.kind == ExprKind::index && std::find(names.begin(), names.end(), e.index) == names.end()) names.push_back(e.index);
    for (const Expr& operand : e.operands) visit(operand);
  };
  visit(expr);
  return names;
}

std::string_view to_string(BinaryOp op) {
  switch (op) {
    case BinaryOp::add: return "+";
    case BinaryOp::sub: return "-";
    case BinaryOp::mul: return "*";
    case BinaryOp::div: return "/";
  }
  return "?";
}

std::string_view to_string(Function function) {
  switch (function) {
    case Function::relu: return "relu";
    case Function::sigmoid: return "sigmoid";
    case Function::tanh: return "tanh";
    case Function::gelu_erf: return "gelu_erf";
    case Function::exp: return "exp";
    case Function::max: return "max";
    case Function::min: return "min";
    case Function::sqrt: return "sqrt";
    case Function::rsqrt: return "rsqrt";
    case Function::log: return "log";
    case Function::abs: return "abs";
    case Function::silu: return "silu";
    case Function::gelu_tanh: return "gelu_tanh";
    case Function::to_f16: return "f16";
    case Function::to_bf16: return "bf16";
    case Function::to_f32: return "f32";
  }
  return "?";
}

std::optional<Function> parse_function(std::string_view name) {
  if (name == "gelu") return Function::gelu_erf;  // the alias: GELU's exact form
  // Tensor Comprehensions' type names (element_type.h's aliases) convert too.
  if (name == "half" || name == "float16") return Function::to_f16;
  if (name == "float" || name == "float32") return Function::to_f32;
  // C's math names, as Tensor Comprehensions' programs spell them (float and double forms).
  static const std::pair<std::string_view, Function> c_names[] = {
      {"fmax", Function::max},   {"fmaxf", Function::max},  {"fmin", Function::min},   {"fminf", Function::min},
      {"fabs", Function::abs},   {"fabsf", Function::abs},  {"expf", Function::exp},   {"logf", Function::log},
      {"sqrtf", Function::sqrt}, {"rsqrtf", Function::rsqrt}, {"tanhf", Function::tanh}};
  for (const auto& [c_name, function] : c_names)
    if (c_name == name) return function;
  for (Function f : kAllFunctions)
    if (to_string(f) == name) return f;
  return std::nullopt;
}

std::string function_names() {
  std::string text;
  for (Function f : kAllFunctions) {
    if (!text.empty()) text += f == kAllFunctions[std::size(kAllFunctions) - 1] ? " and " : ", ";
    if (f == Function::gelu_erf) text += "gelu, ";
    text += to_string(f);
  }
  return text;
}

int arity(Function function) {
  return function == Function::max || function == Function::min ? 2 : 1;
}

std::optional<ElementType> conversion_type(Function function) {
  switch (function) {
    case Function::to_f16: return ElementType::f16;
    case Function::to_bf16: return ElementType::bf16;
    case Function::to_f32: return ElementType::f32;
    default: return std::nullopt;
  }
}

static void collect_reads(const Expr& expr, std::vector<int>& out) {
  if (expr.kind == ExprKind::read) out.push_back(expr.read);
  for (const Expr& operand : expr.operands) collect_reads(operand, out);
}

std::vector<int> reads_in(const Expr& expr) {
  std::vector<int> out;
  collect_reads(expr, out);
  return out;
}

int node_count(const Expr& expr) {
  int count = 1;
  for (const Expr& operand : expr.operands) count += node_count(operand);
  return count;
}

std::string format_number(double value) {
  char buffer[64];
  auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  if (ec != std::errc()) return "?";
  return std::string(buffer, ptr);
}

}  // namespace polyfuse
