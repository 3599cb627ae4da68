// Tokens of the `.tc` language, produced by the Lexer and consumed by the Parser.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "frontend/diagnostics.h"

namespace polyfuse {

// The kinds of token. Newlines are tokens because they end statements.
enum class TokenKind {
  end_of_file,
  newline,        // "\n" (statement separator outside parentheses)
  identifier,     // [A-Za-z_][A-Za-z0-9_]* other than a keyword
  integer,        // [0-9]+
  floating,       // 1.5, 2., .5, 1e-3, 2.5E+4
  kw_def,         // def
  left_paren,     // (
  right_paren,    // )
  left_brace,     // {
  right_brace,    // }
  comma,          // ,
  semicolon,      // ; (statement separator, like a newline)
  arrow,          // ->
  assign,         // =
  plus_assign,    // +=
  reduce_assign,  // +=!
  star_assign,         // *=
  star_reduce_assign,  // *=!
  max_assign,          // max=  (one token: no space between "max" and "=")
  max_reduce_assign,   // max=!
  min_assign,          // min=
  min_reduce_assign,   // min=!
  plus,           // +
  minus,          // -
  star,           // *
  slash,          // /
  colon,          // : (the range of a `where` clause, `0:P`; the else branch of `?:`)
  question,       // ?
  less,           // <
  less_equal,     // <=
  greater,        // >
  greater_equal,  // >=
  equal,          // ==
  not_equal,      // !=
  and_and,        // &&
  or_or,          // ||
  bang,           // ! (logical not)
  invalid,        // a character outside the language (already reported by the lexer)
};

// How a token kind is named in messages ("'('", "a newline", "an identifier").
std::string_view describe(TokenKind kind);

// One token with its text and place.
struct Token {
  TokenKind kind = TokenKind::end_of_file;
  std::string text;           // the exact source text of the token
  SourceLocation location;    // where the token starts
  std::int64_t int_value = 0;  // value of an integer token (0 if out of range)
  double float_value = 0;      // value of an integer or floating token
};

// A token for messages: "'foo'" for identifiers and numbers, describe(kind) otherwise.
std::string describe(const Token& token);

}  // namespace polyfuse
