#include "frontend/token.h"

namespace polyfuse {

std::string_view describe(TokenKind kind) {
  switch (kind) {
    case TokenKind::end_of_file: return "the end of the file";
    case TokenKind::newline: return "a newline";
    case TokenKind::identifier: return "a name";
    case TokenKind::integer: return "an integer";
    case TokenKind::floating: return "a number";
    case TokenKind::kw_def: return "'def'";
    case TokenKind::left_paren: return "'('";
    case TokenKind::right_paren: return "')'";
    case TokenKind::left_brace: return "'{'";
    case TokenKind::right_brace: return "'}'";
    case TokenKind::comma: return "','";
    case TokenKind::semicolon: return "';'";
    case TokenKind::arrow: return "'->'";
    case TokenKind::assign: return "'='";
    case TokenKind::plus_assign: return "'+='";
    case TokenKind::reduce_assign: return "'+=!'";
    case TokenKind::star_assign: return "'*='";
    case TokenKind::star_reduce_assign: return "'*=!'";
    case TokenKind::max_assign: return "'max='";
    case TokenKind::max_reduce_assign: return "'max=!'";
    case TokenKind::min_assign: return "'min='";
    case TokenKind::min_reduce_assign: return "'min=!'";
    case TokenKind::plus: return "'+'";
    case TokenKind::minus: return "'-'";
    case TokenKind::star: return "'*'";
    case TokenKind::slash: return "'/'";
    case TokenKind::colon: return "':'";
    case TokenKind::question: return "'?'";
    case TokenKind::less: return "'<'";
    case TokenKind::less_equal: return "'<='";
    case TokenKind::greater: return "'>'";
    case TokenKind::greater_equal: return "'>='";
    case TokenKind::equal: return "'=='";
    case TokenKind::not_equal: return "'!='";
    case TokenKind::and_and: return "'&&'";
    case TokenKind::or_or: return "'||'";
    case TokenKind::bang: return "'!'";
    case TokenKind::invalid: return "an invalid character";
  }
  return "a token";
}

std::string describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::identifier:
    case TokenKind::integer:
    case TokenKind::floating: return quote_name(token.text);
    default: return std::string(describe(token.kind));
  }
}

}  // namespace polyfuse
