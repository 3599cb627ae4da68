// Readable text of the polyhedral IR, for `polyfuse compile --emit=ir` and golden tests.
//
// The output is deterministic: per def, its sizes, tensors (role, type, shape), every
// statement (source form, kind, accumulation type, domain, write and reads with the
// domain constraints gisted away, expression tree), the dependences (each relation's
// maps sorted as text), and the recognised idioms.
#pragma once

#include <string>

#include "frontend/dependences.h"
#include "frontend/expr.h"
#include "frontend/idioms.h"
#include "frontend/program.h"

namespace polyfuse {

// The whole IR text of `program` with its dependences and idioms.
std::string print_program(const Program& program, const Dependences& dependences,
                          const Idioms& idioms);

// Same, computing dependences and idioms.
std::string print_program(const Program& program);

// `expr` of `statement` in source form with minimal parentheses ("relu(C(m, n) + bias(n))").
std::string print_expr(const Expr& expr, const Statement& statement);

// `expr` as an indented tree, one node per line, each line prefixed by `indent`.
std::string print_expr_tree(const Expr& expr, const Statement& statement, const std::string& indent);

// The source form of a statement ("C(m, n) +=! A(m, k) * B(k, n)").
std::string print_statement_source(const Statement& statement);

// isl's text of a union map, one map per line (sorted), each prefixed by `indent`;
// "(none)" when empty.
std::string print_union_map(const isl::union_map& relation, const std::string& indent);

}  // namespace polyfuse
