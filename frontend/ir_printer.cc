#include "frontend/ir_printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

namespace polyfuse {
namespace {

template <typename T>
std::string isl_text(const T& object) {
  std::ostringstream out;
  out << object;
  return out.str();
}

std::string join(const std::vector<std::string>& names, std::string_view separator = ", ") {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) text += separator;
    text += names[i];
  }
  return text;
}

std::string access_text(const Access& access) {
  if (access.subscripts.empty()) return fmt::format("{}({})", access.tensor, join(access.indices));
  std::vector<std::string> subscripts;
  for (const AffineIndex& subscript : access.subscripts) subscripts.push_back(subscript.to_string());
  return fmt::format("{}({})", access.tensor, join(subscripts));
}

// Binding strength as in the language (parser.h): ?: < || < && < comparisons < + - < * / < unary.
int precedence(const Expr& expr) {
  switch (expr.kind) {
    case ExprKind::select: return -3;
    case ExprKind::logical_or: return -2;
    case ExprKind::logical_and: return -1;
    case ExprKind::compare: return 0;
    case ExprKind::binary: return expr.op == BinaryOp::add || expr.op == BinaryOp::sub ? 1 : 2;
    case ExprKind::negate:
    case ExprKind::logical_not: return 3;
    default: return 4;
  }
}

// The symbol of an infix node's operator.
std::string infix_symbol(const Expr& expr) {
  if (expr.kind == ExprKind::compare) return std::string(to_string(expr.comparison));
  if (expr.kind == ExprKind::logical_and) return "&&";
  if (expr.kind == ExprKind::logical_or) return "||";
  return std::string(to_string(expr.op));
}

std::string shape_text(const Tensor& tensor, const Program& program) {
  std::vector<std::string> dims;
  for (const Size& size : tensor.dims) {
    auto bound = size.is_symbolic() ? program.size_bindings.find(size.symbol) : program.size_bindings.end();
    dims.push_back(bound != program.size_bindings.end()
                       ? fmt::format("{}={}", size.symbol, bound->second)
                       : size.to_string());
  }
  return fmt::format("{}({})", tensor.name, join(dims));
}

std::string operand_text(const MatmulOperand& operand, const Statement& statement) {
  std::string text = fmt::format("{} {}", operand.tensor, to_string(operand.layout));
  if (operand.has_prologue) text += fmt::format(", prologue {}", print_expr(operand.factor, statement));
  return text;
}

std::string idiom_text(const StatementIdiom& idiom, const Statement& statement) {
  switch (idiom.kind) {
    case IdiomKind::matmul:
    case IdiomKind::batch_reduce_matmul: {
      const MatmulIdiom& mm = idiom.matmul;
      std::string text = fmt::format("{}: m={} n={} k={}", to_string(idiom.kind), mm.m, mm.n, mm.k);
      if (!mm.reduce_batch.empty()) text += fmt::format(" r={}", mm.reduce_batch);
      text += fmt::format(" batch=({})", join(mm.batch));
      text += fmt::format(" {}\n", mm.zero_init ? "zero-initialised" : "accumulating");
      text += fmt::format("      A = {}\n", operand_text(mm.a, statement));
      text += fmt::format("      B = {}", operand_text(mm.b, statement));
      return text;
    }
    case IdiomKind::pointwise: {
      std::string text = "pointwise";
      if (!idiom.prologue_of.empty()) text += fmt::format(", prologue of {}", join(idiom.prologue_of));
      if (!idiom.epilogue_of.empty()) text += fmt::format(", epilogue of {}", join(idiom.epilogue_of));
      return text;
    }
    case IdiomKind::other: return fmt::format("other reduction ({})", idiom.reason);
  }
  return "?";
}

}  // namespace

std::string print_expr(const Expr& expr, const Statement& statement) {
  switch (expr.kind) {
    case ExprKind::constant: return format_number(expr.value);
    case ExprKind::read: return access_text(statement.reads.at(static_cast<std::size_t>(expr.read)));
    case ExprKind::negate: {
      std::string inner = print_expr(expr.operands[0], statement);
      if (precedence(expr.operands[0]) < 3) return fmt::format("-({})", inner);
      return fmt::format("-{}", inner);
    }
    case ExprKind::binary:
    case ExprKind::compare:
    case ExprKind::logical_and:
    case ExprKind::logical_or: {
      int mine = precedence(expr);
      std::string lhs = print_expr(expr.operands[0], statement);
      std::string rhs = print_expr(expr.operands[1], statement);
      if (precedence(expr.operands[0]) < mine) lhs = fmt::format("({})", lhs);
      if (precedence(expr.operands[1]) <= mine) rhs = fmt::format("({})", rhs);
      return fmt::format("{} {} {}", lhs, infix_symbol(expr), rhs);
    }
    case ExprKind::index: return expr.index;
    case ExprKind::logical_not: {
      std::string inner = print_expr(expr.operands[0], statement);
      if (precedence(expr.operands[0]) < 3) return fmt::format("!({})", inner);
      return fmt::format("!{}", inner);
    }
    case ExprKind::select: {
      std::vector<std::string> parts;
      for (const Expr& operand : expr.operands) {
        std::string part = print_expr(operand, statement);
        parts.push_back(precedence(operand) <= precedence(expr) ? fmt::format("({})", part) : part);
      }
      return fmt::format("{} ? {} : {}", parts[0], parts[1], parts[2]);
    }
    case ExprKind::call: {
      std::vector<std::string> args;
      for (const Expr& operand : expr.operands) args.push_back(print_expr(operand, statement));
      return fmt::format("{}({})", to_string(expr.function), join(args));
    }
  }
  return "?";
}

std::string print_expr_tree(const Expr& expr, const Statement& statement, const std::string& indent) {
  std::string line;
  switch (expr.kind) {
    case ExprKind::constant: line = "constant " + format_number(expr.value); break;
    case ExprKind::read:
      line = fmt::format("read {} {}", expr.read,
                         access_text(statement.reads.at(static_cast<std::size_t>(expr.read))));
      break;
    case ExprKind::negate: line = "negate"; break;
    case ExprKind::binary: line = fmt::format("binary {}", to_string(expr.op)); break;
    case ExprKind::call: line = fmt::format("call {}", to_string(expr.function)); break;
    case ExprKind::index: line = "index " + expr.index; break;
    case ExprKind::compare: line = fmt::format("compare {}", to_string(expr.comparison)); break;
    case ExprKind::logical_and: line = "and"; break;
    case ExprKind::logical_or: line = "or"; break;
    case ExprKind::logical_not: line = "not"; break;
    case ExprKind::select: line = "select"; break;
  }
  std::string text = indent + line + "\n";
  for (const Expr& operand : expr.operands) text += print_expr_tree(operand, statement, indent + "  ");
  return text;
}

std::string print_statement_source(const Statement& statement) {
  std::string text = fmt::format("{} {} {}", access_text(statement.write), operator_spelling(statement),
                                 print_expr(statement.expr, statement));
  // The stated values outside tensors, once per tensor, as a `where` clause.
  std::vector<std::string> outside;
  for (const Access& read : statement.reads) {
    if (!read.outside_value) continue;
    std::string clause = fmt::format("{} = {} outside", read.tensor, format_number(*read.outside_value));
    if (std::find(outside.begin(), outside.end(), clause) == outside.end()) outside.push_back(clause);
  }
  if (!outside.empty()) text += " where " + join(outside);
  return text;
}

std::string print_union_map(const isl::union_map& relation, const std::string& indent) {
  std::vector<std::string> lines;
  isl::map_list maps = relation.map_list();
  for (unsigned i = 0; i < maps.size(); ++i) lines.push_back(isl_text(maps.at(static_cast<int>(i)).coalesce()));
  if (lines.empty()) return indent + "(none)\n";
  std::sort(lines.begin(), lines.end());
  std::string text;
  for (const std::string& line : lines) text += indent + line + "\n";
  return text;
}

std::string print_program(const Program& program) {
  Dependences dependences = compute_dependences(program);
  return print_program(program, dependences, recognize_idioms(program, dependences));
}

std::string print_program(const Program& program, const Dependences& dependences, const Idioms& idioms) {
  std::string text = fmt::format("def {}  # {}:{}:{}\n", program.name, program.file,
                                 program.location.line, program.location.col);
  std::vector<std::string> bound;
  for (const auto& [name, value] : program.size_bindings) bound.push_back(fmt::format("{}={}", name, value));
  text += fmt::format("  parameters: {}\n", program.parameters.empty() ? "(none)" : join(program.parameters));
  text += fmt::format("  bound sizes: {}\n", bound.empty() ? "(none)" : join(bound));
  text += "  tensors:\n";
  for (const Tensor& tensor : program.tensors)
    text += fmt::format("    {:<9} {:<4} {}\n", to_string(tensor.role), to_string(tensor.type),
                        shape_text(tensor, program));
  text += "  statements:\n";
  for (const Statement& s : program.statements) {
    text += fmt::format("    {}: {}  # line {}\n", s.id, print_statement_source(s), s.location.line);
    // The operator is printed only where it is not a sum (the dumps of sums stay as they were).
    text += fmt::format("      kind: {}{}, accumulate: {}, reduction indices: {}\n", to_string(s.kind),
                        s.is_non_sum_reduction() ? fmt::format(" ({})", to_string(s.reduction)) : "",
                        to_string(s.accumulate_type),
                        s.reduction_indices().empty() ? "(none)" : join(s.reduction_indices()));
    text += fmt::format("      domain: {}\n", isl_text(s.domain));
    text += fmt::format("      write:  {}\n", isl_text(s.write.relation.gist_domain(s.domain)));
    for (std::size_t i = 0; i < s.reads.size(); ++i)
      text += fmt::format("      read {}: {}\n", i, isl_text(s.reads[i].relation.gist_domain(s.domain)));
    text += "      expression:\n" + print_expr_tree(s.expr, s, "        ");
  }
  text += "  dependences:\n";
  text += "    RAW (flow, write -> read):\n" + print_union_map(dependences.raw, "      ");
  text += "    WAR (anti, read -> write):\n" + print_union_map(dependences.war, "      ");
  text += "    WAW (output, write -> write):\n" + print_union_map(dependences.waw, "      ");
  text += "  idioms:\n";
  for (const StatementIdiom& idiom : idioms.statements) {
    const Statement* s = program.find_statement(idiom.statement);
    text += fmt::format("    {}: {}\n", idiom.statement, idiom_text(idiom, *s));
  }
  return text;
}

}  // namespace polyfuse
