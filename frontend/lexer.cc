#include "frontend/lexer.h"

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cmath>
#include <fmt/format.h>

namespace polyfuse {

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

char Lexer::peek(std::size_t ahead) const {
  return pos_ + ahead < source_.size() ? source_[pos_ + ahead] : '\0';
}

void Lexer::advance() {
  if (at_end()) return;
  if (source_[pos_] == '\n') {
    ++line_;
    col_ = 1;
  } else {
    ++col_;
  }
  ++pos_;
}

Token Lexer::next() {
  for (;;) {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\r')) advance();
    if (!at_end() && peek() == '#') {
      while (!at_end() && peek() != '\n') advance();
      continue;
    }
    break;
  }
  SourceLocation start = here();
  auto simple = [&](TokenKind kind, std::size_t length) {
    Token token;
    token.kind = kind;
    token.text = std::string(source_.substr(pos_, length));
    token.location = start;
    for (std::size_t i = 0; i < length; ++i) advance();
    return token;
  };
  if (at_end()) return Token{TokenKind::end_of_file, "", start};
  char c = peek();
  if (is_digit(c) || (c == '.' && is_digit(peek(1)))) return lex_number(start);
  if (is_ident_start(c)) return lex_identifier(start);
  switch (c) {
    case '\n': return simple(TokenKind::newline, 1);
    case '(': return simple(TokenKind::left_paren, 1);
    case ')': return simple(TokenKind::right_paren, 1);
    case '{': return simple(TokenKind::left_brace, 1);
    case '}': return simple(TokenKind::right_brace, 1);
    case ',': return simple(TokenKind::comma, 1);
    case ';': return simple(TokenKind::semicolon, 1);
    case ':': return simple(TokenKind::colon, 1);
    case '*':
      if (peek(1) == '=' && peek(2) == '!') return simple(TokenKind::star_reduce_assign, 3);
      if (peek(1) == '=') return simple(TokenKind::star_assign, 2);
      return simple(TokenKind::star, 1);
    case '/': return simple(TokenKind::slash, 1);
    case '=':
      if (peek(1) == '=') return simple(TokenKind::equal, 2);
      return simple(TokenKind::assign, 1);
    case '?': return simple(TokenKind::question, 1);
    case '<':
      if (peek(1) == '=') return simple(TokenKind::less_equal, 2);
      return simple(TokenKind::less, 1);
    case '>':
      if (peek(1) == '=') return simple(TokenKind::greater_equal, 2);
      return simple(TokenKind::greater, 1);
    case '!':
      if (peek(1) == '=') return simple(TokenKind::not_equal, 2);
      return simple(TokenKind::bang, 1);
    case '&':
      if (peek(1) == '&') return simple(TokenKind::and_and, 2);
      return lex_invalid(start);
    case '|':
      if (peek(1) == '|') return simple(TokenKind::or_or, 2);
      return lex_invalid(start);
    case '-':
      if (peek(1) == '>') return simple(TokenKind::arrow, 2);
      return simple(TokenKind::minus, 1);
    case '+':
      if (peek(1) == '=' && peek(2) == '!') return simple(TokenKind::reduce_assign, 3);
      if (peek(1) == '=') return simple(TokenKind::plus_assign, 2);
      return simple(TokenKind::plus, 1);
    default: return lex_invalid(start);
  }
}

Token Lexer::lex_number(SourceLocation start) {
  std::size_t begin = pos_;
  bool is_float = false;
  while (is_digit(peek())) advance();
  if (peek() == '.') {
    is_float = true;
    advance();
    while (is_digit(peek())) advance();
  }
  if ((peek() == 'e' || peek() == 'E') &&
      (is_digit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && is_digit(peek(2))))) {
    is_float = true;
    advance();
    if (peek() == '+' || peek() == '-') advance();
    while (is_digit(peek())) advance();
  }
  Token token;
  token.text = std::string(source_.substr(begin, pos_ - begin));
  token.location = start;
  const char* first = token.text.data();
  const char* last = first + token.text.size();
  if (is_float) {
    token.kind = TokenKind::floating;
    // strtod gives HUGE_VAL on overflow and a tiny value (accepted) on underflow.
    errno = 0;
    double value = std::strtod(token.text.c_str(), nullptr);
    if (errno == ERANGE && std::isinf(value)) {
      sink_.error(start, fmt::format("floating-point literal {} is out of range", quote_name(token.text)));
      value = 0;
    }
    token.float_value = value;
  } else {
    token.kind = TokenKind::integer;
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec != std::errc()) {
      sink_.error(start, fmt::format("integer literal {} is out of range (the largest is {})",
                                     quote_name(token.text), INT64_MAX));
      value = 0;
    }
    token.int_value = value;
    token.float_value = static_cast<double>(value);
  }
  return token;
}

Token Lexer::lex_identifier(SourceLocation start) {
  std::size_t begin = pos_;
  while (is_ident_char(peek())) advance();
  Token token;
  token.text = std::string(source_.substr(begin, pos_ - begin));
  token.location = start;
  token.kind = token.text == "def" ? TokenKind::kw_def : TokenKind::identifier;
  // `max=!`, `max=`, `min=!`, `min=`: the reduction operators, written without spaces.
  if ((token.text == "max" || token.text == "min") && peek() == '=') {
    const bool init = peek(1) == '!';
    const bool is_max = token.text == "max";
    token.kind = is_max ? (init ? TokenKind::max_reduce_assign : TokenKind::max_assign)
                        : (init ? TokenKind::min_reduce_assign : TokenKind::min_assign);
    token.text += init ? "=!" : "=";
    advance();
    if (init) advance();
  }
  return token;
}

Token Lexer::lex_invalid(SourceLocation start) {
  unsigned char byte = static_cast<unsigned char>(peek());
  std::string message;
  if (byte == '&' || byte == '|')
    message = fmt::format("unexpected character '{0}' (the logical operator is '{0}{0}')", static_cast<char>(byte));
  else if (byte >= 0x21 && byte < 0x7f)
    message = fmt::format("unexpected character '{}'", static_cast<char>(byte));
  else if (byte >= 0x80)
    message = fmt::format("unexpected byte 0x{:02X} (only ASCII is allowed outside comments)", byte);
  else
    message = fmt::format("unexpected byte 0x{:02X}", byte);
  sink_.error(start, std::move(message));
  // Skip a whole run of bytes outside the language, so that garbage costs one error.
  Token token{TokenKind::invalid, "", start};
  auto outside = [](unsigned char b) {
    return !(b == ' ' || b == '\t' || b == '\r' || b == '\n' || b == '#' || b == '(' ||
             b == ')' || b == '{' || b == '}' || b == ',' || b == ';' || b == ':' || b == '=' ||
             b == '+' || b == '-' || b == '*' || b == '/' || b == '.' || b == '?' || b == '<' || b == '>' ||
             b == '!' || is_ident_char(b));
  };
  do {
    token.text += peek();
    advance();
  } while (!at_end() && outside(static_cast<unsigned char>(peek())) && token.text.size() < 64);
  return token;
}

}  // namespace polyfuse
