// Recursive-descent parser for `.tc` files.
//
// Grammar (newlines end statements, except where line_continuation.h says a statement
// goes on: inside parentheses, after a binary or an assignment operator, and before a line
// that starts with a binary operator or a `where` clause):
//
//   file       := { separator } { def { separator } }
//   def        := 'def' NAME '(' [ params ] ')' '->' outputs '{' body '}'
//   outputs    := '(' [ params ] ')' | NAME                  (`-> A`: one output by name alone)
//   params     := param { ',' param }
//   param      := TYPE '(' [ size { ',' size } ] ')' NAME      TYPE: f16 | bf16 | f32 | half | float
//               | TYPE NAME                                  (a scalar: a tensor with no dimensions)
//               | NAME                                       (an output by name alone)
//   size       := NAME | INTEGER
//   body       := { separator } { statement separator { separator } }
//   separator  := NEWLINE | ';'
//   statement  := NAME [ '(' [ expr { ',' expr } ] ')' ] assign_op expr [ where ]
//                 (a name alone writes a tensor with no dimensions: `v min=! V(r_d)`)
//   where      := 'where' clause { ',' clause }
//   clause     := NAME 'in' expr ':' expr                 (a range: `h in 0:P`)
//               | NAME '=' [ '-' ] NUMBER 'outside'         (a boundary value: `I = 0 outside`)
//   assign_op  := '=' | '+=!' | '+=' | '*=!' | '*=' | 'max=!' | 'max=' | 'min=!' | 'min='
//                 (each one token: `max=!` is lexed as a whole, with no space inside)
//   expr       := or [ '?' expr ':' expr ]                   (right-associative, as in C and TC)
//   or         := and { '||' and }
//   and        := comparison { '&&' comparison }
//   comparison := sum { ( '<' | '<=' | '>' | '>=' | '==' | '!=' ) sum }
//   sum        := term { ( '+' | '-' ) term }
//   term       := unary { ( '*' | '/' ) unary }
//   unary      := '-' unary | '!' unary | primary
//   primary    := NUMBER | NAME [ '(' [ expr { ',' expr } ] ')' ] | '(' expr ')'
//
// `where`, `in` and `outside` are words only in that position (they stay usable as
// names). Indices are parsed as expressions; sema checks that they are affine. Errors are reported to the sink; the parser then skips to the next
// statement (or to the next `def` for an error in a signature) and goes on, so one
// run reports several errors. Nesting deeper than limits::max_expression_depth is an
// error, never a stack overflow.
#pragma once

#include <string_view>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "frontend/line_continuation.h"

namespace polyfuse {

// Parses one source text into an ast::File; errors go to the sink.
class Parser {
 public:
  // Parses `source` (it must outlive the parser), reporting to `sink`.
  Parser(std::string_view source, DiagnosticSink& sink);

  // Parses the whole file. Check sink.has_errors() afterwards: on errors the tree holds
  // whatever parsed cleanly.
  ast::File parse_file();

 private:
  // Thrown after an error was reported, to unwind to the nearest recovery point.
  struct Abort {};

  // True when the current token is of `kind`.
  bool at(TokenKind kind) const { return current_.kind == kind; }
  // Moves to the next token; `track` counts parentheses to skip newlines inside them.
  void advance(bool track = true);
  // Consumes the current token if it is `kind`.
  bool accept(TokenKind kind);
  // Consumes a `kind` token or reports "expected <what>, found ..." and aborts.
  Token expect(TokenKind kind, std::string_view what);
  // Reports an error and aborts to the recovery point.
  [[noreturn]] void fail(SourceLocation where, std::string message);
  // Skips newline tokens / newline and ';' tokens.
  void skip_newlines();
  void skip_separators();
  // Recovery: skip to the end of the statement / to the next def.
  void sync_statement();
  void sync_def();

  // One rule of the grammar above each (def, params, param, size, body, statement,
  // expr, term, unary, primary); they report errors and throw Abort.
  ast::Def parse_def();
  std::vector<ast::Param> parse_params(std::string_view list_name);
  ast::Param parse_param(bool output);
  ast::SizeRef parse_size();
  void parse_body(ast::Def& def);
  ast::Statement parse_statement();
  // Consumes an assignment operator ('=', '+=!', 'max=', ...) into `statement`; false
  // (nothing consumed) if the current token is none.
  bool parse_assign_op(ast::Statement& statement);
  // Parses one `where` clause (after 'where' or ',') into `statement`.
  void parse_where_clause(ast::Statement& statement);
  ast::Expr parse_expression();
  ast::Expr parse_or();
  ast::Expr parse_and();
  // `operand { token operand }` as left-associative logical nodes (op '&' or '|').
  ast::Expr parse_logical(TokenKind token, char op, ast::Expr (Parser::*operand)());
  ast::Expr parse_comparison();
  ast::Expr parse_sum();
  ast::Expr parse_term();
  ast::Expr parse_unary();
  ast::Expr parse_primary();
  // Builds a node over `args`, checking the depth limit.
  ast::Expr make_node(ast::Expr::Kind kind, SourceLocation where, std::vector<ast::Expr> args);
  // Builds the infix node `lhs OP rhs` of `kind` at the operator's location `where`.
  ast::Expr make_infix(ast::Expr::Kind kind, SourceLocation where, ast::Expr lhs, ast::Expr rhs);

  DiagnosticSink& sink_;   // where syntax errors go
  ContinuedLines lexer_;   // token source (the lexer's tokens less continuation newlines)
  Token current_;          // the token being looked at
  int paren_nesting_ = 0;  // open parentheses (newlines inside them are skipped)
  int recursion_ = 0;      // current depth of parse_unary, bounded by the depth limit
};

// Parses `source`, reporting to `sink` (convenience wrapper around Parser).
ast::File parse(std::string_view source, DiagnosticSink& sink);

}  // namespace polyfuse
