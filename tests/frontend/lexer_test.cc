// Lexer: every token kind, comments, numbers, and every lexical error with its message.
#include <gtest/gtest.h>

#include "frontend/lexer.h"

namespace polyfuse {
namespace {

struct Lexed {
  std::vector<Token> tokens;
  std::vector<Diagnostic> diagnostics;
};

Lexed lex_all(std::string_view text) {
  DiagnosticSink sink("t.tc");
  Lexer lexer(text, sink);
  Lexed out;
  for (;;) {
    Token token = lexer.next();
    out.tokens.push_back(token);
    if (token.kind == TokenKind::end_of_file) break;
  }
  out.diagnostics = sink.diagnostics();
  return out;
}

std::vector<TokenKind> kinds(std::string_view text) {
  std::vector<TokenKind> result;
  for (const Token& token : lex_all(text).tokens) result.push_back(token.kind);
  return result;
}

std::string first_message(std::string_view text) {
  Lexed lexed = lex_all(text);
  if (lexed.diagnostics.empty()) return "";
  const Diagnostic& d = lexed.diagnostics.front();
  return std::to_string(d.line) + ":" + std::to_string(d.col) + ": " + d.message;
}

using K = TokenKind;

TEST(Lexer, PunctuationAndOperators) {
  EXPECT_EQ(kinds("( ) { } , ; -> = += +=! + - * /"),
            (std::vector<K>{K::left_paren, K::right_paren, K::left_brace, K::right_brace, K::comma,
                            K::semicolon, K::arrow, K::assign, K::plus_assign, K::reduce_assign,
                            K::plus, K::minus, K::star, K::slash, K::end_of_file}));
}

// ':' separates the bounds of a `where` range (`h in 0:P`); `where`, `in` and `outside` are
// identifiers (words only in a where clause).
TEST(Lexer, ColonAndWhereWords) {
  EXPECT_EQ(kinds("where h in 0:P, I = 0 outside"),
            (std::vector<K>{K::identifier, K::identifier, K::identifier, K::integer, K::colon, K::identifier,
                            K::comma, K::identifier, K::assign, K::integer, K::identifier, K::end_of_file}));
}

TEST(Lexer, ReductionOperatorsAreOneTokenEach) {
  EXPECT_EQ(kinds("*=! *= max=! max= min=! min= * max min"),
            (std::vector<K>{K::star_reduce_assign, K::star_assign, K::max_reduce_assign, K::max_assign,
                            K::min_reduce_assign, K::min_assign, K::star, K::identifier, K::identifier,
                            K::end_of_file}));
  Lexed lexed = lex_all("mx(m) max=! C(m, n)");
  ASSERT_EQ(lexed.tokens.size(), 12u);
  EXPECT_EQ(lexed.tokens[4].text, "max=!");
  EXPECT_EQ(lexed.tokens[4].location.col, 7);
  EXPECT_EQ(lexed.tokens[5].location.col, 13);
  // With a space inside it is the function name, then '=' and the logical not '!'.
  EXPECT_EQ(kinds("max =x"), (std::vector<K>{K::identifier, K::assign, K::identifier, K::end_of_file}));
  EXPECT_EQ(kinds("max =! x"), (std::vector<K>{K::identifier, K::assign, K::bang, K::identifier, K::end_of_file}));
  // A longer name is an identifier: maxv=1 is 'maxv', '=', '1'.
  EXPECT_EQ(kinds("maxv=1"), (std::vector<K>{K::identifier, K::assign, K::integer, K::end_of_file}));
}

TEST(Lexer, KeywordIdentifiersAndNewlines) {
  Lexed lexed = lex_all("def gemm_1 _x\n  f16");
  ASSERT_EQ(lexed.tokens.size(), 6u);
  EXPECT_EQ(lexed.tokens[0].kind, K::kw_def);
  EXPECT_EQ(lexed.tokens[1].text, "gemm_1");
  EXPECT_EQ(lexed.tokens[2].text, "_x");
  EXPECT_EQ(lexed.tokens[3].kind, K::newline);
  EXPECT_EQ(lexed.tokens[4].text, "f16");
  EXPECT_EQ(lexed.tokens[4].location.line, 2);
  EXPECT_EQ(lexed.tokens[4].location.col, 3);
}

TEST(Lexer, CommentsRunToTheEndOfTheLine) {
  EXPECT_EQ(kinds("a # comment with \x01 and \xff bytes +=!\nb"),
            (std::vector<K>{K::identifier, K::newline, K::identifier, K::end_of_file}));
}

TEST(Lexer, Numbers) {
  Lexed lexed = lex_all("42 1.5 2. .5 1e-3 2.5E+4 007");
  ASSERT_TRUE(lexed.diagnostics.empty());
  EXPECT_EQ(lexed.tokens[0].kind, K::integer);
  EXPECT_EQ(lexed.tokens[0].int_value, 42);
  EXPECT_EQ(lexed.tokens[1].kind, K::floating);
  EXPECT_DOUBLE_EQ(lexed.tokens[1].float_value, 1.5);
  EXPECT_DOUBLE_EQ(lexed.tokens[2].float_value, 2.0);
  EXPECT_DOUBLE_EQ(lexed.tokens[3].float_value, 0.5);
  EXPECT_DOUBLE_EQ(lexed.tokens[4].float_value, 1e-3);
  EXPECT_DOUBLE_EQ(lexed.tokens[5].float_value, 2.5e4);
  EXPECT_EQ(lexed.tokens[6].int_value, 7);
}

TEST(Lexer, ThirtyDigitIntegerIsOutOfRange) {
  EXPECT_EQ(first_message("x 123456789012345678901234567890"),
            "1:3: integer literal '123456789012345678901234567890' is out of range (the largest "
            "is 9223372036854775807)");
}

TEST(Lexer, HugeFloatIsOutOfRange) {
  EXPECT_EQ(first_message("1e999"), "1:1: floating-point literal '1e999' is out of range");
}

TEST(Lexer, UnexpectedCharacters) {
  EXPECT_EQ(first_message("a % b"), "1:3: unexpected character '%'");
  EXPECT_EQ(first_message("C(m) = a & b"), "1:10: unexpected character '&' (the logical operator is '&&')");
  EXPECT_EQ(first_message("C(m) = a | b"), "1:10: unexpected character '|' (the logical operator is '||')");
  EXPECT_EQ(first_message(std::string_view("ab\0c", 4)), "1:3: unexpected byte 0x00");
  EXPECT_EQ(first_message("x = \xc3\xa9"),
            "1:5: unexpected byte 0xC3 (only ASCII is allowed outside comments)");
}

TEST(Lexer, GarbageRunIsOneError) {
  Lexed lexed = lex_all("@@@@$$$$ ok");
  EXPECT_EQ(lexed.diagnostics.size(), 1u);
  EXPECT_EQ(lexed.tokens[0].kind, K::invalid);
  EXPECT_EQ(lexed.tokens[1].text, "ok");
}

TEST(Lexer, ErrorsAreCapped) {
  std::string garbage;
  for (int i = 0; i < 100; ++i) garbage += "% ";
  Lexed lexed = lex_all(garbage);
  // max_reported_errors errors plus the "too many errors" note.
  EXPECT_EQ(lexed.diagnostics.size(), max_reported_errors + 1);
  EXPECT_EQ(lexed.diagnostics.back().message, "too many errors (20); stopping here");
}

}  // namespace
}  // namespace polyfuse
