// Syntax tree of a `.tc` file, as written (before any semantic check).
//
// The parser does not know which names are tensors and which are functions: `f(x, y)`
// is a `call` node whatever `f` is; semantic analysis (sema.h) resolves it. Trees are
// at most limits::max_expression_depth deep, so recursive walks are safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/condition.h"
#include "frontend/diagnostics.h"
#include "frontend/element_type.h"
#include "frontend/reduction_op.h"

namespace polyfuse::ast {

// One node of an expression.
struct Expr {
  // What the node is.
  enum class Kind {
    number,  // a literal: `text`, `value`, `is_integer`
    name,    // a bare name: `name` (valid only as a tensor index)
    negate,  // unary minus of args[0]
    binary,  // args[0] `op` args[1], op one of + - * /
    call,    // name(args...): a tensor reference or a function call
    compare,      // args[0] `comparison` args[1]
    logical,      // args[0] && args[1] (op '&') or args[0] || args[1] (op '|')
    logical_not,  // !args[0]
    select,       // args[0] ? args[1] : args[2]
  };
  Kind kind = Kind::number;
  SourceLocation location;  // first character of the node (the operator for binary)
  std::string name;         // for name and call
  std::string text;         // the literal's source text, for number
  double value = 0;         // the literal's value, for number
  bool is_integer = false;  // number written without '.' or exponent
  char op = 0;              // '+', '-', '*' or '/' for binary; '&' or '|' for logical
  Comparison comparison = Comparison::lt;  // for compare
  std::vector<Expr> args;   // operands or call arguments
  int depth = 1;            // height of this subtree (1 for a leaf)
};

// A size in a tensor declaration: a name or an integer literal.
struct SizeRef {
  std::string name;          // empty for a literal
  std::int64_t value = 0;    // the literal, when name is empty
  SourceLocation location;
};

// One tensor in a def's signature: `f16(M, K) A`.
struct Param {
  ElementType type = ElementType::f32;  // f32 when the written type was unknown (reported)
  SourceLocation type_location;
  std::vector<SizeRef> dims;  // the sizes, outermost first (empty for a scalar)
  std::string name;           // the tensor's name
  SourceLocation location;    // of the name
  bool inferred = false;      // an output declared by name alone: type and sizes from its first write
};

// The assignment operator of a statement: =, op=! (from the identity), op= (from the
// element's value), op being Statement::reduction.
enum class AssignOp { assign, reduce_init, reduce };

// A `where` clause stating an index's range: `where h in 0:P` (lower bound `lower`
// inclusive, upper bound `upper` exclusive, both expressions over sizes and integers).
struct RangeClause {
  std::string index;        // the index variable
  SourceLocation location;  // of the index's name
  Expr lower;               // the first value
  Expr upper;               // one past the last value
};

// A `where` clause stating the value read outside a tensor: `where I = 0 outside`
// (zero padding). Reads of `tensor` in the statement may then leave its extent.
struct BoundaryClause {
  std::string tensor;       // the tensor read
  SourceLocation location;  // of the tensor's name
  double value = 0;         // the value read outside the tensor
};

// One statement: `lhs op rhs [where clause, ...]`.
struct Statement {
  Expr lhs;                 // a call node: the written tensor and its indices
  AssignOp op = AssignOp::assign;
  ReductionOp reduction = ReductionOp::sum;  // +, *, max, min for reduce_init and reduce
  SourceLocation op_location;
  Expr rhs;
  std::vector<RangeClause> ranges;          // `where i in lo:hi`, in order
  std::vector<BoundaryClause> boundaries;   // `where T = v outside`, in order
  SourceLocation location;  // start of the statement
};

// One `def name(inputs) -> (outputs) { statements }`.
struct Def {
  std::string name;                   // the def's name
  SourceLocation location;            // of the name
  std::vector<Param> inputs;          // before '->'
  std::vector<Param> outputs;         // after '->'
  std::vector<Statement> statements;  // the body, in order
};

// A whole file: its defs in order.
struct File {
  std::vector<Def> defs;  // in file order
};

// `expr` printed back as source text (fully parenthesised binary operations inside
// operands, e.g. "m + 1", "relu(A(m, k))"), for messages.
std::string to_source(const Expr& expr);

// Where `expr` starts in the source: its leftmost operand's location for infix nodes
// (binary, compare, logical, select).
SourceLocation start_location(const Expr& expr);

// The spelling of `op` with `reduction` ("=", "+=!", "max=", ...).
std::string spelling(AssignOp op, ReductionOp reduction = ReductionOp::sum);

}  // namespace polyfuse::ast
