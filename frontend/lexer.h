// Lexer: turns `.tc` source text into tokens, one at a time.
//
// Lexical rules: `#` starts a comment to the end of the line (any bytes allowed there);
// spaces, tabs and carriage returns separate tokens; a newline is a token. Identifiers
// are ASCII `[A-Za-z_][A-Za-z0-9_]*`; `def` is the only keyword. Numbers are decimal:
// integers `[0-9]+` (at most 2^63-1) and floating literals with a `.` and/or an
// exponent. Operators: `+ - * / = ( ) { } , ; : -> ? < <= > >= == != && || !` and the
// assignment operators of token.h. Any other byte (including NUL and non-ASCII bytes outside comments) is an
// error reported to the sink; the lexer then returns an `invalid` token and goes on.
#pragma once

#include <string_view>

#include "frontend/diagnostics.h"
#include "frontend/token.h"

namespace polyfuse {

// Produces tokens from a source text; errors go to a DiagnosticSink.
class Lexer {
 public:
  // Lexes `source` (not copied: it must outlive the lexer), reporting to `sink`.
  Lexer(std::string_view source, DiagnosticSink& sink) : source_(source), sink_(sink) {}

  // The next token; end_of_file forever once the text is exhausted.
  Token next();

 private:
  // Current byte, or '\0' at the end (check at_end() to tell a real NUL apart).
  char peek(std::size_t ahead = 0) const;
  // True once every byte was consumed.
  bool at_end() const { return pos_ >= source_.size(); }
  // Consumes one byte, tracking line and column.
  void advance();
  // Location of the current byte.
  SourceLocation here() const { return SourceLocation{line_, col_}; }
  // Lexes an integer or floating literal starting at the current byte.
  Token lex_number(SourceLocation start);
  // Lexes an identifier or the keyword `def`.
  Token lex_identifier(SourceLocation start);
  // Reports a byte outside the language and skips the run of such bytes.
  Token lex_invalid(SourceLocation start);

  std::string_view source_;  // the text being lexed
  DiagnosticSink& sink_;     // where lexical errors go
  std::size_t pos_ = 0;      // offset of the current byte
  int line_ = 1;             // line of the current byte
  int col_ = 1;              // column of the current byte
};

}  // namespace polyfuse
