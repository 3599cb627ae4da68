// Statements that span lines, as Tensor Comprehensions writes them: the token stream the
// parser reads, the Lexer's tokens less the newlines that do not end a statement.
//
// The rule: a newline ends a statement, except
//   - inside parentheses, after a binary operator (`+ - * / < <= > >= == != && || ? :`)
//     or after an assignment operator (the parser skips those newlines), and
//   - before a line that starts with a binary operator (any of those above, '-'
//     included) or with a `where` clause (`where` followed by a name): such a line
//     continues the statement above it (this class drops the newlines before it).
// A statement always starts with a name followed by '(' (`where(i) = ...` is a tensor
// named where), so no line that starts a statement is taken as a continuation, and a
// continuation line can never be read as a statement. Blank lines and comment lines
// between the parts are newlines like the others. ';' always ends a statement.
#pragma once

#include <deque>
#include <string_view>

#include "frontend/diagnostics.h"
#include "frontend/lexer.h"
#include "frontend/token.h"

namespace polyfuse {

// The Lexer's tokens with the continuation newlines left out.
class ContinuedLines {
 public:
  // Lexes `source` (it must outlive this object), reporting to `sink`.
  ContinuedLines(std::string_view source, DiagnosticSink& sink) : lexer_(source, sink) {}

  // The next token.
  Token next();

 private:
  // The token `ahead` places after the ones already taken (0: the next one).
  const Token& peek(std::size_t ahead);

  Lexer lexer_;
  std::deque<Token> pending_;  // tokens lexed ahead, in order
};

// True for the tokens a line that continues a statement may start with.
bool continues_statement(TokenKind kind);

}  // namespace polyfuse
