#include "frontend/ast.h"

#include <fmt/format.h>

namespace polyfuse::ast {

static std::string to_source_inner(const Expr& expr, bool nested) {
  switch (expr.kind) {
    case Expr::Kind::number: return expr.text;
    case Expr::Kind::name: return expr.name;
    case Expr::Kind::negate: return fmt::format("-{}", to_source_inner(expr.args.at(0), true));
    case Expr::Kind::binary: {
      std::string text = fmt::format("{} {} {}", to_source_inner(expr.args.at(0), true), expr.op,
                                     to_source_inner(expr.args.at(1), true));
      return nested ? fmt::format("({})", text) : text;
    }
    case Expr::Kind::compare:
    case Expr::Kind::logical: {
      const std::string op = expr.kind == Expr::Kind::compare ? std::string(to_string(expr.comparison))
                                                              : std::string(2, expr.op);
      std::string text = fmt::format("{} {} {}", to_source_inner(expr.args.at(0), true), op,
                                     to_source_inner(expr.args.at(1), true));
      return nested ? fmt::format("({})", text) : text;
    }
    case Expr::Kind::logical_not: return fmt::format("!{}", to_source_inner(expr.args.at(0), true));
    case Expr::Kind::select: {
      std::string text = fmt::format("{} ? {} : {}", to_source_inner(expr.args.at(0), true),
                                     to_source_inner(expr.args.at(1), true), to_source_inner(expr.args.at(2), true));
      return nested ? fmt::format("({})", text) : text;
    }
    case Expr::Kind::call: {
      std::string text = expr.name + "(";
      for (std::size_t i = 0; i < expr.args.size(); ++i) {
        if (i) text += ", ";
        text += to_source_inner(expr.args[i], false);
      }
      return text + ")";
    }
  }
  return "?";
}

std::string to_source(const Expr& expr) { return to_source_inner(expr, false); }

SourceLocation start_location(const Expr& expr) {
  const Expr* node = &expr;
  while (node->kind == Expr::Kind::binary || node->kind == Expr::Kind::compare || node->kind == Expr::Kind::logical ||
         node->kind == Expr::Kind::select)
    node = &node->args.at(0);
  return node->location;
}

std::string spelling(AssignOp op, ReductionOp reduction) {
  switch (op) {
    case AssignOp::assign: return "=";
    case AssignOp::reduce_init: return std::string(operator_prefix(reduction)) + "=!";
    case AssignOp::reduce: return std::string(operator_prefix(reduction)) + "=";
  }
  return "?";
}

}  // namespace polyfuse::ast
