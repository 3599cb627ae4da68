// Expression trees of the polyhedral IR: the right-hand side of a statement.
//
// An Expr is a value type (children are held in a std::vector, copied deeply). A tensor
// read is a leaf that refers to `Statement::reads[read]`, whose access relation says
// which element is read; the tree itself holds no isl objects.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/condition.h"
#include "frontend/diagnostics.h"
#include "frontend/element_type.h"

namespace polyfuse {

// What an expression node is.
enum class ExprKind {
  constant,  // a literal: `value`
  read,      // a tensor element: Statement::reads[read]
  negate,    // -operands[0]
  binary,    // operands[0] `op` operands[1]
  call,      // function(operands...)
  index,     // the value of the statement's index variable `index` (exact in f32 up to 2^24)
  compare,   // operands[0] `comparison` operands[1]: a condition (condition.h)
  logical_and,  // operands[0] && operands[1], both conditions
  logical_or,   // operands[0] || operands[1], both conditions
  logical_not,  // !operands[0], a condition
  select,    // operands[0] ? operands[1] : operands[2]: a condition, then two values
};

// Arithmetic operators.
enum class BinaryOp { add, sub, mul, div };

// Built-in functions: max and min take two arguments, the others one. `gelu` in the
// language is gelu_erf (the exact form, x Phi(x)); gelu_tanh is the tanh approximation.
// The conversions to_f16, to_bf16 and to_f32 (`f16(x)`, `bf16(x)`, `f32(x)` in the language)
// round their argument to the type (nearest even) and give that value.
enum class Function {
  relu, sigmoid, tanh, gelu_erf, exp, max, min,
  sqrt, rsqrt, log, abs, silu, gelu_tanh,
  to_f16, to_bf16, to_f32,
};

// Every built-in function, in the order above.
inline constexpr Function kAllFunctions[] = {
    Function::relu, Function::sigmoid, Function::tanh,  Function::gelu_erf, Function::exp,
    Function::max,  Function::min,     Function::sqrt,  Function::rsqrt,    Function::log,
    Function::abs,  Function::silu,    Function::gelu_tanh, Function::to_f16,   Function::to_bf16,
    Function::to_f32,
};

// One node of an expression tree.
struct Expr {
  ExprKind kind = ExprKind::constant;
  double value = 0;                 // for constant
  bool integer = false;             // for constant: an integer literal or a size (TC types it int)
  int read = -1;                    // for read: index into Statement::reads
  BinaryOp op = BinaryOp::add;      // for binary
  Function function = Function::relu;  // for call
  Comparison comparison = Comparison::lt;  // for compare
  std::string index;                // for index: the index variable's name
  std::vector<Expr> operands;       // children, left to right
  SourceLocation location;          // where the node starts in the source

  // A literal.
  static Expr constant_node(double value, SourceLocation where);
  // A read of Statement::reads[index].
  static Expr read_node(int index, SourceLocation where);
  // -operand.
  static Expr negate_node(Expr operand, SourceLocation where);
  // lhs op rhs.
  static Expr binary_node(BinaryOp op, Expr lhs, Expr rhs, SourceLocation where);
  // function(arguments...).
  static Expr call_node(Function function, std::vector<Expr> arguments, SourceLocation where);
  // The value of index variable `name`.
  static Expr index_node(std::string name, SourceLocation where);
  // lhs comparison rhs.
  static Expr compare_node(Comparison comparison, Expr lhs, Expr rhs, SourceLocation where);
  // A node of `kind` (logical_and, logical_or, logical_not, select) over `operands`.
  static Expr condition_node(ExprKind kind, std::vector<Expr> operands, SourceLocation where);
};

// True for the nodes whose value is a condition (compare, logical_and/or/not), not a number.
bool is_condition(const Expr& expr);
// True when some node of `expr` is of `kind` (an index value, a `?:`: nodes some kernels
// do not take yet).
bool contains_kind(const Expr& expr, ExprKind kind);
// The names of the index variables `expr` uses as values, each once, in order of appearance.
std::vector<std::string> index_values(const Expr& expr);

// The symbol of `op` ("+", "-", "*", "/").
std::string_view to_string(BinaryOp op);
// The name of `function` as written in the language ("relu", ...).
std::string_view to_string(Function function);
// The built-in function called `name` ("gelu" is gelu_erf), or nullopt.
std::optional<Function> parse_function(std::string_view name);
// The names of the built-in functions for messages ("relu, sigmoid, tanh, gelu, gelu_erf,
// ... and gelu_tanh").
std::string function_names();
// Number of arguments `function` takes (1 or 2).
int arity(Function function);
// The type a conversion (to_f16, to_bf16, to_f32) rounds to; nullopt for other functions.
std::optional<ElementType> conversion_type(Function function);
// Indices (into Statement::reads) of every read in `expr`, left to right.
std::vector<int> reads_in(const Expr& expr);
// Number of nodes of `expr`.
int node_count(const Expr& expr);
// A literal in shortest round-trip form ("0", "1.5", "1e-05").
std::string format_number(double value);

}  // namespace polyfuse
