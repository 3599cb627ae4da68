#include "frontend/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "frontend/limits.h"

namespace polyfuse {

Parser::Parser(std::string_view source, DiagnosticSink& sink)
    : sink_(sink), lexer_(source, sink) {
  current_ = lexer_.next();
}

ast::File parse(std::string_view source, DiagnosticSink& sink) {
  return Parser(source, sink).parse_file();
}

void Parser::advance(bool track) {
  if (track) {
    if (at(TokenKind::left_paren)) ++paren_nesting_;
    if (at(TokenKind::right_paren) && paren_nesting_ > 0) --paren_nesting_;
  }
  current_ = lexer_.next();
  while (track && paren_nesting_ > 0 && at(TokenKind::newline)) current_ = lexer_.next();
}

bool Parser::accept(TokenKind kind) {
  if (!at(kind)) return false;
  advance();
  return true;
}

Token Parser::expect(TokenKind kind, std::string_view what) {
  if (!at(kind)) fail(current_.location, fmt::format("expected {}, found {}", what, describe(current_)));
  Token token = current_;
  advance();
  return token;
}

void Parser::fail(SourceLocation where, std::string message) {
  // An invalid token was already reported by the lexer: do not pile a second error on it.
  if (!at(TokenKind::invalid)) sink_.error(where, std::move(message));
  throw Abort{};
}

void Parser::skip_newlines() {
  while (at(TokenKind::newline)) advance();
}

void Parser::skip_separators() {
  while (at(TokenKind::newline) || at(TokenKind::semicolon)) advance();
}

void Parser::sync_statement() {
  paren_nesting_ = 0;
  while (!at(TokenKind::end_of_file) && !at(TokenKind::right_brace) && !at(TokenKind::kw_def)) {
    if (at(TokenKind::newline) || at(TokenKind::semicolon)) {
      advance(false);
      return;
    }
    advance(false);
  }
}

void Parser::sync_def() {
  paren_nesting_ = 0;
  while (!at(TokenKind::end_of_file) && !at(TokenKind::kw_def)) advance(false);
}

ast::File Parser::parse_file() {
  ast::File file;
  skip_separators();
  while (!at(TokenKind::end_of_file) && !sink_.full()) {
    if (!at(TokenKind::kw_def)) {
      if (!at(TokenKind::invalid))
        sink_.error(current_.location, fmt::format("expected 'def', found {}", describe(current_)));
      sync_def();
      continue;
    }
    if (file.defs.size() >= limits::max_defs_per_file) {
      sink_.error(current_.location, fmt::format("too many defs in one file (the limit is {})",
                                                 limits::max_defs_per_file));
      break;
    }
    try {
      file.defs.push_back(parse_def());
    } catch (const Abort&) {
      sync_def();
    }
    skip_separators();
  }
  return file;
}

ast::Def Parser::parse_def() {
  ast::Def def;
  expect(TokenKind::kw_def, "'def'");
  Token name = expect(TokenKind::identifier, "a name after 'def'");
  def.name = name.text;
  def.location = name.location;
  def.inputs = parse_params("inputs");
  skip_newlines();
  expect(TokenKind::arrow, "'->' after the inputs");
  skip_newlines();
  if (at(TokenKind::identifier)) {
    // `-> A`, as TC's documentation writes a single output: its name alone, no parentheses.
    ast::Param output;
    output.name = current_.text;
    output.location = output.type_location = current_.location;
    output.inferred = true;
    advance();
    if (at(TokenKind::comma))
      fail(current_.location, fmt::format("several outputs are listed in parentheses: '-> ({}, ...)'", output.name));
    if (at(TokenKind::left_paren) || at(TokenKind::identifier))
      fail(current_.location, fmt::format("an output declared with its type and sizes is listed in parentheses: "
                                          "'-> ({} ...)' (only a name alone may go without them)", output.name));
    def.outputs.push_back(std::move(output));
  } else {
    def.outputs = parse_params("outputs");
  }
  skip_newlines();
  expect(TokenKind::left_brace, "'{' to start the body");
  parse_body(def);
  return def;
}

std::vector<ast::Param> Parser::parse_params(std::string_view list_name) {
  std::vector<ast::Param> params;
  expect(TokenKind::left_paren, fmt::format("'(' to start the {}", list_name));
  if (accept(TokenKind::right_paren)) return params;
  do {
    if (params.size() >= limits::max_parameters_per_def)
      fail(current_.location, fmt::format("too many tensors in one signature (the limit is {})",
                                          limits::max_parameters_per_def));
    params.push_back(parse_param(list_name == "outputs"));
  } while (accept(TokenKind::comma));
  expect(TokenKind::right_paren, fmt::format("',' or ')' in the {}", list_name));
  return params;
}

ast::Param Parser::parse_param(bool output) {
  ast::Param param;
  Token type = expect(TokenKind::identifier, "a tensor declaration like 'f16(M, K) A'");
  param.type_location = type.location;
  if (at(TokenKind::comma) || at(TokenKind::right_paren)) {
    // A name alone, as Tensor Comprehensions writes outputs: type and shape are inferred.
    param.name = type.text;
    param.location = type.location;
    param.inferred = true;
    if (!output)
      sink_.error(type.location, fmt::format("input {} needs a type and sizes, like 'f16(M, K) {}' (only outputs "
                                             "may be declared by name alone)", quote_name(type.text), type.text));
    return param;
  }
  if (auto parsed = parse_element_type(type.text)) {
    param.type = *parsed;
  } else if (auto reason = unsupported_type_reason(type.text)) {
    sink_.error(type.location, fmt::format("type {}: {}", quote_name(type.text), *reason));
  } else {
    sink_.error(type.location, fmt::format("unknown type {} (expected {})", quote_name(type.text), element_type_names()));
  }
  if (at(TokenKind::identifier)) {
    // A scalar parameter, `float alpha`: a tensor with no dimensions, read by its name alone.
    param.name = current_.text;
    param.location = current_.location;
    advance();
    return param;
  }
  expect(TokenKind::left_paren, fmt::format("'(' and the sizes after the type {}", quote_name(type.text)));
  if (!accept(TokenKind::right_paren)) {
    do {
      if (param.dims.size() >= limits::max_tensor_rank)
        fail(current_.location, fmt::format("too many dimensions (the limit is {})",
                                            limits::max_tensor_rank));
      param.dims.push_back(parse_size());
    } while (accept(TokenKind::comma));
    expect(TokenKind::right_paren, "',' or ')' after a size");
  }
  Token name = expect(TokenKind::identifier, "the tensor's name after its sizes");
  param.name = name.text;
  param.location = name.location;
  return param;
}

ast::SizeRef Parser::parse_size() {
  ast::SizeRef size;
  size.location = current_.location;
  if (at(TokenKind::identifier)) {
    size.name = current_.text;
    advance();
    return size;
  }
  if (at(TokenKind::integer)) {
    size.value = current_.int_value;
    if (current_.int_value < 1 && current_.text.find_first_not_of('0') == std::string::npos)
      sink_.error(size.location, "size must be at least 1");
    else if (current_.int_value > limits::max_size_value)
      sink_.error(size.location, fmt::format("size {} is too large (the limit is {})",
                                             current_.text, limits::max_size_value));
    advance();
    return size;
  }
  fail(current_.location,
       fmt::format("expected a size (a name or an integer), found {}", describe(current_)));
}

void Parser::parse_body(ast::Def& def) {
  for (;;) {
    skip_separators();
    if (sink_.full()) throw Abort{};
    if (accept(TokenKind::right_brace)) return;
    if (at(TokenKind::end_of_file) || at(TokenKind::kw_def)) {
      fail(current_.location, fmt::format("expected '}}' to end def {}, found {}",
                                          quote_name(def.name), describe(current_)));
    }
    if (def.statements.size() >= limits::max_statements_per_def) {
      fail(current_.location, fmt::format("too many statements in def {} (the limit is {})",
                                          quote_name(def.name), limits::max_statements_per_def));
    }
    try {
      ast::Statement statement = parse_statement();
      if (!at(TokenKind::newline) && !at(TokenKind::semicolon) && !at(TokenKind::right_brace) &&
          !at(TokenKind::end_of_file))
        fail(current_.location, fmt::format("expected a newline or ';' after the statement, found {}",
                                            describe(current_)));
      def.statements.push_back(std::move(statement));
    } catch (const Abort&) {
      sync_statement();
    }
  }
}

ast::Statement Parser::parse_statement() {
  ast::Statement statement;
  statement.location = current_.location;
  if (!at(TokenKind::identifier))
    fail(current_.location, fmt::format("expected a statement like 'C(m, n) = ...', found {}",
                                        describe(current_)));
  statement.lhs = parse_primary();
  // `v min=! V(r_d)`: a tensor with no dimensions is written by its name alone, as TC writes it.
  if (statement.lhs.kind == ast::Expr::Kind::name) statement.lhs.kind = ast::Expr::Kind::call;
  statement.op_location = current_.location;
  if (!parse_assign_op(statement)) {
    if (at(TokenKind::identifier) && (current_.text == "max" || current_.text == "min"))
      fail(current_.location, fmt::format("expected the reduction operator '{0}=!' or '{0}=' after '{1}', written "
                                          "without spaces", current_.text, ast::to_source(statement.lhs)));
    fail(current_.location, fmt::format("expected '=' or a reduction operator ('+=!', '+=', '*=!', '*=', 'max=!', "
                                        "'max=', 'min=!', 'min=') after '{}', found {}",
                                        ast::to_source(statement.lhs), describe(current_)));
  }
  skip_newlines();
  statement.rhs = parse_expression();
  if (at(TokenKind::identifier) && current_.text == "where") {
    advance();
    parse_where_clause(statement);
    while (accept(TokenKind::comma)) {
      skip_newlines();  // a clause list may go on on the next line after a comma
      parse_where_clause(statement);
    }
  }
  return statement;
}

void Parser::parse_where_clause(ast::Statement& statement) {
  Token name = expect(TokenKind::identifier, "an index or a tensor name after 'where'");
  if (at(TokenKind::identifier) && current_.text == "in") {
    advance();
    ast::RangeClause range{name.text, name.location, parse_expression(), {}};
    expect(TokenKind::colon, fmt::format("':' in the range of '{}' (written 'where {} in 0:N')", name.text, name.text));
    range.upper = parse_expression();
    statement.ranges.push_back(std::move(range));
    return;
  }
  if (accept(TokenKind::assign)) {
    const bool negative = accept(TokenKind::minus);
    if (!at(TokenKind::integer) && !at(TokenKind::floating))
      fail(current_.location, fmt::format("expected the number read outside '{}' (written 'where {} = 0 outside'), "
                                          "found {}", name.text, name.text, describe(current_)));
    const double value = negative ? -current_.float_value : current_.float_value;
    advance();
    if (!(at(TokenKind::identifier) && current_.text == "outside"))
      fail(current_.location, fmt::format("expected 'outside' after the boundary value of '{}' (written 'where {} = "
                                          "0 outside'), found {}", name.text, name.text, describe(current_)));
    advance();
    statement.boundaries.push_back(ast::BoundaryClause{name.text, name.location, value});
    return;
  }
  fail(current_.location, fmt::format("expected 'in' (a range: 'where {0} in 0:N') or '=' (a boundary value: 'where "
                                      "{0} = 0 outside') after '{0}', found {1}", name.text, describe(current_)));
}

bool Parser::parse_assign_op(ast::Statement& statement) {
  struct Spelling {
    TokenKind token;
    ast::AssignOp op;
    ReductionOp reduction;
  };
  static constexpr Spelling spellings[] = {
      {TokenKind::assign, ast::AssignOp::assign, ReductionOp::sum},
      {TokenKind::reduce_assign, ast::AssignOp::reduce_init, ReductionOp::sum},
      {TokenKind::plus_assign, ast::AssignOp::reduce, ReductionOp::sum},
      {TokenKind::star_reduce_assign, ast::AssignOp::reduce_init, ReductionOp::product},
      {TokenKind::star_assign, ast::AssignOp::reduce, ReductionOp::product},
      {TokenKind::max_reduce_assign, ast::AssignOp::reduce_init, ReductionOp::max},
      {TokenKind::max_assign, ast::AssignOp::reduce, ReductionOp::max},
      {TokenKind::min_reduce_assign, ast::AssignOp::reduce_init, ReductionOp::min},
      {TokenKind::min_assign, ast::AssignOp::reduce, ReductionOp::min},
  };
  for (const Spelling& spelling : spellings)
    if (accept(spelling.token)) {
      statement.op = spelling.op;
      statement.reduction = spelling.reduction;
      return true;
    }
  return false;
}

ast::Expr Parser::make_node(ast::Expr::Kind kind, SourceLocation where, std::vector<ast::Expr> args) {
  ast::Expr node;
  node.kind = kind;
  node.location = where;
  int depth = 0;
  for (const ast::Expr& arg : args) depth = std::max(depth, arg.depth);
  node.depth = depth + 1;
  node.args = std::move(args);
  if (node.depth > limits::max_expression_depth)
    fail(where, fmt::format("expression is nested too deeply (more than {} levels)",
                            limits::max_expression_depth));
  return node;
}

ast::Expr Parser::make_infix(ast::Expr::Kind kind, SourceLocation where, ast::Expr lhs, ast::Expr rhs) {
  std::vector<ast::Expr> args;
  args.push_back(std::move(lhs));
  args.push_back(std::move(rhs));
  return make_node(kind, where, std::move(args));
}

ast::Expr Parser::parse_expression() {
  ast::Expr condition = parse_or();
  if (!at(TokenKind::question)) return condition;
  const SourceLocation where = current_.location;
  advance();
  skip_newlines();
  std::vector<ast::Expr> args;
  args.push_back(std::move(condition));
  args.push_back(parse_expression());
  expect(TokenKind::colon, "':' and the value for a false condition in '?:'");
  skip_newlines();
  args.push_back(parse_expression());
  return make_node(ast::Expr::Kind::select, where, std::move(args));
}

ast::Expr Parser::parse_or() { return parse_logical(TokenKind::or_or, '|', &Parser::parse_and); }

ast::Expr Parser::parse_and() { return parse_logical(TokenKind::and_and, '&', &Parser::parse_comparison); }

ast::Expr Parser::parse_logical(TokenKind token, char op, ast::Expr (Parser::*operand)()) {
  ast::Expr lhs = (this->*operand)();
  while (at(token)) {
    const SourceLocation where = current_.location;
    advance();
    skip_newlines();
    lhs = make_infix(ast::Expr::Kind::logical, where, std::move(lhs), (this->*operand)());
    lhs.op = op;
  }
  return lhs;
}

ast::Expr Parser::parse_comparison() {
  static constexpr std::pair<TokenKind, Comparison> comparisons[] = {
      {TokenKind::less, Comparison::lt},          {TokenKind::less_equal, Comparison::le},
      {TokenKind::greater, Comparison::gt},       {TokenKind::greater_equal, Comparison::ge},
      {TokenKind::equal, Comparison::eq},         {TokenKind::not_equal, Comparison::ne}};
  ast::Expr lhs = parse_sum();
  for (;;) {
    const auto* found = std::find_if(std::begin(comparisons), std::end(comparisons),
                                     [&](const auto& entry) { return at(entry.first); });
    if (found == std::end(comparisons)) return lhs;
    const SourceLocation where = current_.location;
    advance();
    skip_newlines();
    lhs = make_infix(ast::Expr::Kind::compare, where, std::move(lhs), parse_sum());
    lhs.comparison = found->second;
  }
}

ast::Expr Parser::parse_sum() {
  ast::Expr lhs = parse_term();
  while (at(TokenKind::plus) || at(TokenKind::minus)) {
    char op = at(TokenKind::plus) ? '+' : '-';
    SourceLocation where = current_.location;
    advance();
    skip_newlines();
    lhs = make_infix(ast::Expr::Kind::binary, where, std::move(lhs), parse_term());
    lhs.op = op;
  }
  return lhs;
}

ast::Expr Parser::parse_term() {
  ast::Expr lhs = parse_unary();
  while (at(TokenKind::star) || at(TokenKind::slash)) {
    char op = at(TokenKind::star) ? '*' : '/';
    SourceLocation where = current_.location;
    advance();
    skip_newlines();
    lhs = make_infix(ast::Expr::Kind::binary, where, std::move(lhs), parse_unary());
    lhs.op = op;
  }
  return lhs;
}

ast::Expr Parser::parse_unary() {
  struct Guard {
    int& count;
    explicit Guard(int& c) : count(++c) {}
    ~Guard() { --count; }
  } guard(recursion_);
  if (recursion_ > limits::max_expression_depth)
    fail(current_.location, fmt::format("expression is nested too deeply (more than {} levels)",
                                        limits::max_expression_depth));
  if (at(TokenKind::minus) || at(TokenKind::bang)) {
    const ast::Expr::Kind kind = at(TokenKind::minus) ? ast::Expr::Kind::negate : ast::Expr::Kind::logical_not;
    SourceLocation where = current_.location;
    advance();
    std::vector<ast::Expr> args;
    args.push_back(parse_unary());
    return make_node(kind, where, std::move(args));
  }
  return parse_primary();
}

ast::Expr Parser::parse_primary() {
  SourceLocation where = current_.location;
  if (at(TokenKind::integer) || at(TokenKind::floating)) {
    ast::Expr number;
    number.kind = ast::Expr::Kind::number;
    number.location = where;
    number.text = current_.text;
    number.value = current_.float_value;
    number.is_integer = at(TokenKind::integer);
    advance();
    return number;
  }
  if (at(TokenKind::identifier)) {
    std::string name = current_.text;
    advance();
    if (!at(TokenKind::left_paren)) {
      ast::Expr node;
      node.kind = ast::Expr::Kind::name;
      node.location = where;
      node.name = std::move(name);
      return node;
    }
    advance();
    std::vector<ast::Expr> args;
    if (!accept(TokenKind::right_paren)) {
      do {
        args.push_back(parse_expression());
      } while (accept(TokenKind::comma));
      expect(TokenKind::right_paren, fmt::format("',' or ')' in the arguments of {}", quote_name(name)));
    }
    ast::Expr call = make_node(ast::Expr::Kind::call, where, std::move(args));
    call.name = std::move(name);
    return call;
  }
  if (accept(TokenKind::left_paren)) {
    ast::Expr inner = parse_expression();
    expect(TokenKind::right_paren, "')'");
    return inner;
  }
  fail(where, fmt::format("expected an expression, found {}", describe(current_)));
}

}  // namespace polyfuse
