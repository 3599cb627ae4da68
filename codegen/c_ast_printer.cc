#include "codegen/c_ast_printer.h"

#include <fmt/format.h>

#include <map>
#include <optional>
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

// `text` as a non-negative integer literal, or -1.
long long literal(const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoll(text);
}

Printed binary(const isl::ast_expr_op& op, const char* symbol, int precedence, bool commutative, const NameOf& name_of) {
  const std::string left = operand(op.arg(0), name_of, precedence, false);
  const std::string right = operand(op.arg(1), name_of, precedence, !commutative);
  // Two literals (an iterator printed as a constant, codegen/fragment_pipeline.h) fold.
  const long long a = literal(left), b = literal(right);
  const std::string s = symbol;
  if (a >= 0 && b >= 0 && (s == "+" || s == "*" || ((s == "/" || s == "%") && b > 0)))
    return {std::to_string(s == "+" ? a + b : s == "*" ? a * b : s == "/" ? a / b : a % b), primary};
  return {left + " " + symbol + " " + right, precedence};
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
    if (hooks_.fragment_pipeline && hooks_.fragment_pipeline->loops && !pipeline_ && mark_ == "prefetch" &&
        loops_below_mark_ == 0)
      return pipelined_k_steps(loop, indent);
    if (pipeline_ && mark_ == "warp" && loops_below_mark_ == 0) return pipelined_k_slices(loop, indent);
    const std::string iterator = open_loop(loop, indent);
    node(loop.body(), indent + 1);
    close_loop(iterator, indent);
  }

  // Prints `loop`'s pragma and header; returns its isl iterator (named while it is open).
  std::string open_loop(const isl::ast_node_for& loop, int indent) {
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
    return iterator;
  }

  void close_loop(const std::string& iterator, int indent) {
    line(indent, "}");
    --loops_below_mark_;
    iterator_names_.erase(iterator);
  }

  static std::vector<isl::ast_node> children(const isl::ast_node& n) {
    std::vector<isl::ast_node> result;
    if (n.isa<isl::ast_node_block>())
      n.as<isl::ast_node_block>().children().foreach([&](isl::ast_node child) { result.push_back(child); });
    else
      result.push_back(n);
    return result;
  }

  static std::string statement_name(const isl::ast_node& n) {
    if (!n.isa<isl::ast_node_user>()) return "";
    isl::ast_expr e = n.as<isl::ast_node_user>().expr();
    return e.as<isl::ast_expr_op>().arg(0).as<isl::ast_expr_id>().id().name();
  }

  static std::string iterator_of(const isl::ast_node_for& loop) { return loop.iterator().as<isl::ast_expr_id>().id().name(); }

  // The k-step loop with two fragment sets (AstPrintHooks::FragmentPipeline): its body holds
  // the ring's wait and, below the "warp" mark, the k-slice loop whose body opens with the
  // fragment loads.
  void pipelined_k_steps(const isl::ast_node_for& loop, int indent) {
    const AstPrintHooks::FragmentPipeline& fp = *hooks_.fragment_pipeline;
    Pipeline p;
    for (const isl::ast_node& child : children(loop.body())) {
      if (fp.is_wait(statement_name(child))) p.wait = child;
      if (child.isa<isl::ast_node_mark>() && child.as<isl::ast_node_mark>().id().name() == "warp" &&
          child.as<isl::ast_node_mark>().node().isa<isl::ast_node_for>())
        p.slice_loop = child.as<isl::ast_node_mark>().node().as<isl::ast_node_for>();
    }
    PF_INTERNAL_CHECK(!p.wait.is_null() && !p.slice_loop.is_null(),
                      "fragment pipeline: the k-step loop holds no ring wait or no k-slice loop below a warp mark");
    // the fragment loads of the k-slice, leading it or (several matmuls sharing A) between
    // their MMAs: all are issued for the next k-slice before this one's MMAs
    for (const isl::ast_node& child : children(p.slice_loop.body()))
      if (fp.is_fragment_load(statement_name(child))) p.loads.push_back(child);
    PF_INTERNAL_CHECK(!p.loads.empty(), "fragment pipeline: a k-slice loop without fragment loads");
    p.k_step = iterator_of(loop);
    p.step_loop = loop;
    p.k_slice = iterator_of(p.slice_loop);
    // the fill: the first k-step's stage visible, its first k-slice's fragments into set 0
    // (the loads name their buffer, k-step % stages, themselves: isl's expression of it may
    // hold only over the loop's own k-steps)
    const std::string first = expr(loop.init());
    const long long first_value = literal(first);
    line(indent, fmt::format("// fragment pipeline fill: k-step {}'s copies landed (one barrier); its first k-slice's "
                             "fragments into set 0",
                             first));
    iterator_names_[p.k_step] = first_value >= 0 ? first : "(" + first + ")";
    iterator_names_[p.k_slice] = "0";
    wait_statement(p.wait.as<isl::ast_node_user>(), indent, "", "");
    const std::string buffer = first_value >= 0 ? std::to_string(first_value % fp.stages)
                                                : fmt::format("({}) % {}", first, fp.stages);
    for (const isl::ast_node& load : p.loads) statement(load.as<isl::ast_node_user>(), indent, "0", buffer);
    iterator_names_.erase(p.k_slice);
    pipeline_ = p;
    const std::string iterator = open_loop(loop, indent);
    node(loop.body(), indent + 1);
    close_loop(iterator, indent);
    pipeline_.reset();
    after_loop_ = true;  // its last k-slice loaded fragments of the next k-step's stage
  }

  void pipelined_k_slices(const isl::ast_node_for& loop, int indent) {
    const Pipeline& p = *pipeline_;
    const int slices = hooks_.fragment_pipeline->slices;
    const std::string iterator = open_loop(loop, indent);
    const std::string k_step = iterator_names_.at(p.k_step), k_slice = iterator_names_.at(iterator);
    line(indent + 1, fmt::format("if ({} == {}) {{", k_slice, slices - 1));
    line(indent + 2, fmt::format("// before the last k-slice: k-step {} + 1's copies landed, and past this barrier every warp "
                                 "has loaded this stage's fragments (the next k-step's copies may overwrite it)",
                                 k_step));
    // the wait of k-step k_step + 1, in its stage, which exists while the loop's condition holds for it
    iterator_names_[p.k_step] = fmt::format("({} + 1)", k_step);
    const std::string guard = expr(p.step_loop.cond());
    wait_statement(p.wait.as<isl::ast_node_user>(), indent + 2,
                   fmt::format("({} + 1) % {}", k_step, hooks_.fragment_pipeline->stages), guard);
    iterator_names_[p.k_step] = k_step;
    line(indent + 1, "}");
    line(indent + 1, fmt::format("// the next k-slice's fragments into the other set: k-slice {} + 1 of this k-step, or the "
                                 "next k-step's first",
                                 k_slice));
    line(indent + 1, fmt::format("const int next_step = {} + ({} + 1) / {}, next_slice = ({} + 1) % {};", k_step, k_slice,
                                 slices, k_slice, slices));
    iterator_names_[p.k_step] = "next_step";
    iterator_names_[iterator] = "next_slice";
    for (const isl::ast_node& load : p.loads)
      statement(load.as<isl::ast_node_user>(), indent + 1, fmt::format("({} + 1) % 2", k_slice),
                fmt::format("next_step % {}", hooks_.fragment_pipeline->stages));
    iterator_names_[p.k_step] = k_step;
    iterator_names_[iterator] = k_slice;
    set_ = k_slice + " % 2";
    for (const isl::ast_node& child : children(loop.body()))
      if (!hooks_.fragment_pipeline->is_fragment_load(statement_name(child))) node(child, indent + 1);
    set_.clear();
    close_loop(iterator, indent);
  }

  void user(const isl::ast_node_user& n, int indent) {
    if (hooks_.fragment_pipeline && hooks_.fragment_pipeline->is_wait(statement_name(n))) {
      // under the fragment pipeline the ring's wait is printed before the last k-slice
      if (!pipeline_) wait_statement(n, indent, "", "");
      return;
    }
    statement(n, indent, set_.empty() && hooks_.fragment_pipeline ? "0" : set_);
  }

  // The statement's name and its arguments as C expressions; `buffer` (unless "") in place of
  // its first argument.
  std::pair<std::string, std::vector<std::string>> call(const isl::ast_node_user& n, const std::string& buffer) {
    isl::ast_expr e = n.expr();
    PF_INTERNAL_CHECK(e.isa<isl::ast_expr_op>() && e.as<isl::ast_expr_op>().isa<isl::ast_expr_op_call>(),
                      "a user statement is not a call");
    auto c = e.as<isl::ast_expr_op>();
    std::string name = c.arg(0).as<isl::ast_expr_id>().id().name();
    std::vector<std::string> args;
    for (unsigned i = 1; i < c.n_arg(); ++i) args.push_back(expr(c.arg(i)));
    if (!buffer.empty() && !args.empty()) args[0] = buffer;
    return {name, args};
  }

  void lines_of(const std::string& text, int indent) {
    std::istringstream lines(text);
    for (std::string t; std::getline(lines, t);) line(indent, t);
  }

  // One statement instance; `set` ("" for none) the fragment set its fragments are; `buffer`
  // (unless "") in place of its first argument.
  void statement(const isl::ast_node_user& n, int indent, const std::string& set, const std::string& buffer = "") {
    const auto [name, args] = call(n, buffer);
    lines_of(set.empty() ? hooks_.statement(name, args) : hooks_.fragment_pipeline->statement(name, args, set), indent);
  }

  // The ring's wait under the fragment pipeline (AstPrintHooks::FragmentPipeline::wait).
  void wait_statement(const isl::ast_node_user& n, int indent, const std::string& buffer, const std::string& guard) {
    const auto [name, args] = call(n, buffer);
    lines_of(hooks_.fragment_pipeline->wait(name, args, guard, after_loop_ && guard.empty()), indent);
    if (guard.empty()) after_loop_ = false;
  }

  // The k-step loop being printed with two fragment sets.
  struct Pipeline {
    isl::ast_node wait;
    isl::ast_node_for step_loop, slice_loop;
    std::vector<isl::ast_node> loads;
    std::string k_step, k_slice;  // isl iterators
  };

  const AstPrintHooks& hooks_;
  std::ostringstream out_;
  std::map<std::string, std::string> iterator_names_;
  std::string mark_;
  int loops_below_mark_ = 0;
  std::optional<Pipeline> pipeline_;
  bool after_loop_ = false;  // a pipelined k-step loop was printed and no wait outside one since
  std::string set_;  // the fragment set of the statements being printed ("" for none)
};

}  // namespace

std::string print_c_ast(const isl::ast_node& node, const AstPrintHooks& hooks, int indent) {
  Printer printer(hooks);
  printer.node(node, indent);
  return printer.text();
}

std::string print_c_expr(const isl::ast_expr& expr, const NameOf& name_of) { return print(expr, name_of).text; }

}  // namespace polyfuse
