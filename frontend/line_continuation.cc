#include "frontend/line_continuation.h"

namespace polyfuse {

bool continues_statement(TokenKind kind) {
  switch (kind) {
    case TokenKind::plus:
    case TokenKind::minus:
    case TokenKind::star:
    case TokenKind::slash:
    case TokenKind::question:
    case TokenKind::colon:
    case TokenKind::less:
    case TokenKind::less_equal:
    case TokenKind::greater:
    case TokenKind::greater_equal:
    case TokenKind::equal:
    case TokenKind::not_equal:
    case TokenKind::and_and:
    case TokenKind::or_or: return true;
    default: return false;
  }
}

const Token& ContinuedLines::peek(std::size_t ahead) {
  while (pending_.size() <= ahead) pending_.push_back(lexer_.next());
  return pending_[ahead];
}

Token ContinuedLines::next() {
  if (peek(0).kind == TokenKind::newline) {
    std::size_t first = 1;  // the first token after the run of newlines
    while (peek(first).kind == TokenKind::newline) ++first;
    const Token& start = peek(first);
    const bool where_clause = start.kind == TokenKind::identifier && start.text == "where" &&
                              peek(first + 1).kind == TokenKind::identifier;
    // A continuation drops the whole run; else it is one newline (the same separator, and
    // each newline is scanned once).
    const bool continued = continues_statement(start.kind) || where_clause;
    pending_.erase(pending_.begin() + (continued ? 0 : 1), pending_.begin() + first);
  }
  Token token = std::move(pending_.front());
  pending_.pop_front();
  return token;
}

}  // namespace polyfuse
