#include "codegen/c_ast_printer.h"

#include <fmt/format.h>

#include <map>
#include <sstream>

#include "frontend/diagnostics.h"

namespace polyfuse {
namespace {

// C operator precedence: a smaller number binds tighter.
enum Precedence { primary = 0, unary = 2, multiplicative = 3, additive = 4, relational = 6, equality = 7,
                  logical_and = 11, logical_or = 12, conditional = 13 };

struct Printed {
  std::string text;
  int precedence = primary;
};

using NameOf = std::function<std::string(const std::string&)>;

Printed print(const isl::ast_expr& expr, const NameOf& name_of);

std::string operand(const isl::ast_expr& expr, const NameOf& name_of, int parent, bool right_of_noncommutative) {
  Printed p = print(expr, name_of);
  bool parens = p.precedence > parent || (right_of_noncommutative && p.precedence == parent);
  return parens ? "(" + p.text + ")" : p.text;
}

Printed binary(const isl::ast_expr_op& op, const char* symbol, int precedence, bool commutative, const NameOf& name_of) {
  return {operand(op.arg(0), name_of, precedence, false) + " " + symbol + " " +
              operand(op.arg(1), name_of, precedence, !commutative),
          precedence};
}

Printed call(const std::string& function, const isl::ast_expr_op& op, unsigned first, const NameOf& name_of) {
  std::string text = function + "(";
  for (unsigned i = first; i < op.n_arg(); ++i) text += (i > first ? ", " : "") + print(op.arg(i), name_of).text;
  return {text + ")", primary};
}

Printed print_op(const isl::ast_expr_op& op, const NameOf& name_of) {
  if (op.isa<isl::ast_expr_op_add>()) return binary(op, "+", additive, true, name_of);
  if (op.isa<isl::ast_expr_op_sub>()) return binary(op, "-", additive, false, name_of);
  if (op.isa<isl::ast_expr_op_mul>()) return binary(op, "*", multiplicative, true, name_of);
  if (op.isa<isl::ast_expr_op_div>() || op.isa<isl::ast_expr_op_pdiv_q>())
    return binary(op, "/", multiplicative, false, name_of);
  if (op.isa<isl::ast_expr_op_pdiv_r>() || op.isa<isl::ast_expr_op_zdiv_r>())
    return binary(op, "%", multiplicative, false, name_of);
  if (op.isa<isl::ast_expr_op_fdiv_q>()) return call("pf::floordiv", op, 0, name_of);
  if (op.isa<isl::ast_expr_op_min>()) return call("pf::imin", op, 0, name_of);
  if (op.isa<isl::ast_expr_op_max>()) return call("pf::imax", op, 0, name_of);
  if (op.isa<isl::ast_expr_op_minus>()) {
    std::string text = "-";  // (appended, not "-" + a temporary: GCC 12's false -Wrestrict)
    text += operand(op.arg(0), name_of, unary, false);
    return {text, unary};
  }
  if (op.isa<isl::ast_expr_op_and>() || op.isa<isl::ast_expr_op_and_then>())
    return binary(op, "&&", logical_and, true, name_of);
  if (op.isa<isl::ast_expr_op_or>() || op.isa<isl::ast_expr_op_or_else>())
    return binary(op, "||", logical_or, true, name_of);
  if (op.isa<isl::ast_expr_op_eq>()) return binary(op, "==", equality, false, name_of);
  if (op.isa<isl::ast_expr_op_le>()) return binary(op, "<=", relational, false, name_of);
  if (op.isa<isl::ast_expr_op_lt>()) return binary(op, "<", relational, false, name_of);
  if (op.isa<isl::ast_expr_op_ge>()) return binary(op, ">=", relational, false, name_of);
  if (op.isa<isl::ast_expr_op_gt>()) return binary(op, ">", relational, false, name_of);
  if (op.isa<isl::ast_expr_op_cond>() || op.isa<isl::ast_expr_op_select>())
    return {operand(op.arg(0), name_of, conditional - 1, false) + " ? " + operand(op.arg(1), name_of, conditional, false) +
                " : " + operand(op.arg(2), name_of, conditional, false),
            conditional};
  if (op.isa<isl::ast_expr_op_call>()) return call(print(op.arg(0), name_of).text, op, 1, name_of);
  PF_INTERNAL_CHECK(false, "unsupported isl AST operation in generated code");
}

Printed print(const isl::ast_expr& expr, const NameOf& name_of) {
  if (expr.isa<isl::ast_expr_int>()) {
    isl::val v = expr.as<isl::ast_expr_int>().val();
    std::string text = std::to_string(v.get_num_si());
    return {text, v.is_neg() ? unary : primary};
  }
  if (expr.isa<isl::ast_expr_id>()) return {name_of(expr.as<isl::ast_expr_id>().id().name()), primary};
  return print_op(expr.as<isl::ast_expr_op>(), name_of);
}

// Readable names for the loops below each mark, in nesting order.
const std::map<std::string, std::vector<std::string>>& loop_names() {
  static const std::map<std::string, std::vector<std::string>> names{
      {"kstep", {"k_step"}}, {"prefetch", {"k_step"}}, {"pipeline_prologue", {"stage"}}, {"warp", {"k_slice"}},
      {"mma", {"tile_m", "tile_n", "tile_k"}}, {"fragment", {"frag_m", "frag_n"}}};
  return names;
}

class Printer {
 public:
  explicit Printer(const AstPrintHooks& hooks) : hooks_(hooks) {}

  void node(const isl::ast_node& n, int indent) {
    if (n.isa<isl::ast_node_block>()) {
      n.as<isl::ast_node_block>().children().foreach([&](isl::ast_node child) { node(child, indent); });
    } else if (n.isa<isl::ast_node_mark>()) {
      auto mark = n.as<isl::ast_node_mark>();
      std::string name = mark.id().name();
      std::string comment = hooks_.mark_comment ? hooks_.mark_comment(name) : "";
      if (!comment.empty()) line(indent, "// " + comment);
      std::string saved = mark_;
      int saved_loops = loops_below_mark_;
      mark_ = name;
      loops_below_mark_ = 0;
      node(mark.node(), indent);
      mark_ = saved;
      loops_below_mark_ = saved_loops;
    } else if (n.isa<isl::ast_node_for>()) {
      for_loop(n.as<isl::ast_node_for>(), indent);
    } else if (n.isa<isl::ast_node_if>()) {
      auto branch = n.as<isl::ast_node_if>();
      line(indent, "if (" + expr(branch.cond()) + ") {");
      node(branch.then_node(), indent + 1);
      if (branch.has_else_node()) {
        line(indent, "} else {");
        node(branch.else_node(), indent + 1);
      }
      line(indent, "}");
    } else if (n.isa<isl::ast_node_user>()) {
      user(n.as<isl::ast_node_user>(), indent);
    } else {
      PF_INTERNAL_CHECK(false, "unknown isl AST node");
    }
  }

  std::string text() const { return out_.str(); }

 private:
  void line(int indent, const std::string& text) { out_ << std::string(2 * indent, ' ') << text << '\n'; }

  std::string expr(const isl::ast_expr& e) {
    return print(e, [&](const std::string& id) {
      auto iterator = iterator_names_.find(id);
      if (iterator != iterator_names_.end()) return iterator->second;
      return hooks_.identifier ? hooks_.identifier(id) : id;
    }).text;
  }

  void for_loop(const isl::ast_node_for& loop, int indent) {
    std::string iterator = loop.iterator().as<isl::ast_expr_id>().id().name();
    std::string name = iterator;
    auto names = loop_names().find(mark_);
    if (names != loop_names().end() && loops_below_mark_ < static_cast<int>(names->second.size()))
      name = names->second[loops_below_mark_];
    ++loops_below_mark_;
    iterator_names_[iterator] = name;
    std::string inc = expr(loop.inc());
    std::string step = inc == "1" ? "++" + name : name + " += " + inc;
    if (hooks_.loop_pragma) {
      const std::string pragma = hooks_.loop_pragma(mark_);
      if (!pragma.empty()) line(indent, pragma);
    }
    line(indent, fmt::format("for (int {} = {}; {}; {}) {{", name, expr(loop.init()), expr(loop.cond()), step));
    node(loop.body(), indent + 1);
    line(indent, "}");
    --loops_below_mark_;
    iterator_names_.erase(iterator);
  }

  void user(const isl::ast_node_user& n, int indent) {
    isl::ast_expr e = n.expr();
    PF_INTERNAL_CHECK(e.isa<isl::ast_expr_op>() && e.as<isl::ast_expr_op>().isa<isl::ast_expr_op_call>(),
                      "a user statement is not a call");
    auto c = e.as<isl::ast_expr_op>();
    std::string name = c.arg(0).as<isl::ast_expr_id>().id().name();
    std::vector<std::string> args;
    for (unsigned i = 1; i < c.n_arg(); ++i) args.push_back(expr(c.arg(i)));
    std::istringstream lines(hooks_.statement(name, args));
    for (std::string text; std::getline(lines, text);) line(indent, text);
  }

  const AstPrintHooks& hooks_;
  std::ostringstream out_;
  std::map<std::string, std::string> iterator_names_;
  std::string mark_;
  int loops_below_mark_ = 0;
};

}  // namespace

std::string print_c_ast(const isl::ast_node& node, const AstPrintHooks& hooks, int indent) {
  Printer printer(hooks);
  printer.node(node, indent);
  return printer.text();
}

std::string print_c_expr(const isl::ast_expr& expr, const NameOf& name_of) { return print(expr, name_of).text; }

}  // namespace polyfuse
