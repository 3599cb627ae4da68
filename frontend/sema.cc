#include "frontend/sema.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "frontend/index_ranges.h"
#include "frontend/limits.h"
#include "frontend/polyhedral_model.h"

namespace polyfuse {
namespace {

std::string where(SourceLocation location) {
  return fmt::format("{}:{}", location.line, location.col);
}

// Why an index that appears only in index expressions has no range.
std::string unranged_message(const std::string& index) {
  return fmt::format("cannot infer the range of index {}: it appears only in sums whose other indices have no "
                     "range, or in reads with a value outside; state it with 'where {} in 0:N'",
                     quote_name(index), index);
}

// "n, h + r, w + s, c".
std::string subscripts_text(const std::vector<AffineIndex>& subscripts) {
  std::string text;
  for (const AffineIndex& subscript : subscripts) text += (text.empty() ? "" : ", ") + subscript.to_string();
  return text;
}

// "H" or "H=8" (bound), or "7".
std::string size_text(const Size& size, const Program& program) {
  auto bound = size.is_symbolic() ? program.size_bindings.find(size.symbol) : program.size_bindings.end();
  return bound == program.size_bindings.end() ? size.to_string() : fmt::format("{}={}", size.symbol, bound->second);
}

// One use of an index that gives its range: the dimension it indexes alone, or a
// `where` clause (`origin` then says so).
struct IndexUse {
  Size size;
  std::string tensor;
  std::size_t dim = 0;  // 0-based
  SourceLocation location;
  std::string origin;   // "the where clause" for a stated range, else empty

  std::string describe() const {
    return origin.empty() ? fmt::format("{}, dimension {} at {}", tensor, dim + 1, where(location))
                          : fmt::format("{} at {}", origin, where(location));
  }
};

// A subscript that is a sum (`h + r`): it gives ranges to indices that appear only in
// sums (index_ranges.h).
struct AffineUse {
  AffineIndex subscript;
  std::string tensor;
  std::size_t dim = 0;  // 0-based
  SourceLocation location;  // of the subscript
};

// A read found while checking, before its access relation exists.
struct PendingRead {
  std::string tensor;
  std::vector<std::string> indices;  // plain indices ("" for a sum)
  std::vector<AffineIndex> subscripts;
  SourceLocation location;
};

// What one statement collects while it is checked.
struct StatementState {
  std::vector<PendingRead> reads;
  std::map<std::string, IndexUse> ranges;
  std::vector<std::string> rhs_order;  // indices in order of first use on the right
  std::set<std::string> conflicts;     // indices already reported as conflicting
  std::vector<AffineUse> affine_uses;  // subscripts that are sums, of tensors read inside
  std::map<std::string, double> outside_values;  // `where T = v outside`
  bool failed = false;
};

class DefChecker {
 public:
  DefChecker(const ast::Def& def, const SizeBindings& sizes, const IslContextHandle& context,
             DiagnosticSink& sink)
      : def_(def), sizes_(sizes), context_(context), sink_(sink) {}

  Program run();

 private:
  void error(SourceLocation at, std::string message, StatementState* state = nullptr) {
    sink_.error(at, std::move(message));
    if (state) state->failed = true;
  }
  void declare(const std::vector<ast::Param>& params, TensorRole role);
  void check_statement(const ast::Statement& statement);
  // Checks the assignment kind against the reduction indices and that every written
  // index has a range; false (reported) when not.
  bool check_kind_and_ranges(const ast::Statement& statement,
                             const std::vector<std::string>& lhs_indices, StatementState& state,
                             bool lhs_ok);
  // Indices of the right-hand side that are not written, in order of first use.
  static std::vector<std::string> reduction_indices(const std::vector<std::string>& lhs_indices,
                                                    const StatementState& state);
  // Appends the checked statement (and a new temporary for its target if needed).
  void build_statement(const ast::Statement& statement, const std::vector<std::string>& lhs_indices,
                       Expr rhs, StatementState& state, const Tensor* target);
  // Checks `ref`'s subscripts: affine in the indices (plain index names only when
  // `written`), plain ones distinct. Fills `names` (plain index or "") and `subscripts`.
  bool check_subscripts(const ast::Expr& ref, std::vector<std::string>& names,
                        std::vector<AffineIndex>& subscripts, StatementState& state, bool written);
  // `arg` as an affine expression of index variables; false (reported) when it is not.
  bool to_affine(const ast::Expr& arg, AffineIndex& out, StatementState& state);
  // The `where` clauses of `statement`: boundary values, then stated ranges.
  void check_where_clauses(const ast::Statement& statement, StatementState& state);
  // A size expression of a `where` range (`P`, `16`, `H - R + 1` with H and R bound).
  std::optional<Size> range_bound(const ast::Expr& expr, StatementState& state);
  // Ranges of the indices that appear only in sums (index_ranges.h).
  void infer_ranges(const std::vector<std::string>& lhs_indices, StatementState& state);
  // Reports every read that leaves its tensor without a stated outside value; false if any.
  bool check_reads_inside(const Statement& statement, StatementState& state);
  void record_use(const std::string& index, const Tensor& tensor, std::size_t dim,
                  SourceLocation at, StatementState& state, bool on_rhs);
  Expr lower(const ast::Expr& expr, StatementState& state);
  Expr lower_call(const ast::Expr& expr, StatementState& state);
  Expr lower_size_value(const ast::Expr& expr, StatementState& state);
  Tensor* find(std::string_view name) {
    for (Tensor& tensor : program_.tensors)
      if (tensor.name == name) return &tensor;
    return nullptr;
  }

  const ast::Def& def_;
  const SizeBindings& sizes_;
  IslContextHandle context_;
  DiagnosticSink& sink_;
  Program program_;
  std::map<std::string, SourceLocation> first_write_;  // every written name -> first write
  std::set<std::string> size_names_;
  std::set<std::string> poisoned_;  // temporaries whose first write had errors
  std::set<std::string> inferred_outputs_;  // outputs declared by name alone, created at their first write
  // The element type a tensor's values come from: its own for inputs and declared outputs,
  // the common type of what its first write reads for the others (an inferred output's type).
  std::map<std::string, ElementType> source_type_;
  std::size_t next_statement_ = 0;

  // "output" for an output declared by name alone, else "temporary".
  const char* unwritten_kind(const std::string& name) const {
    return inferred_outputs_.count(name) ? "output" : "temporary";
  }
  // Inputs, then outputs in signature order, then temporaries in order of first write.
  void order_tensors();
};

Program DefChecker::run() {
  program_.name = def_.name;
  program_.file = sink_.file();
  program_.location = def_.location;
  program_.set_context(context_);
  // Sizes in order of first use in the signature; bound ones become constants.
  std::set<std::string> seen;
  for (const auto* params : {&def_.inputs, &def_.outputs})
    for (const ast::Param& param : *params)
      for (const ast::SizeRef& size : param.dims) {
        if (size.name.empty() || !seen.insert(size.name).second) continue;
        auto bound = sizes_.find(size.name);
        if (bound != sizes_.end())
          program_.size_bindings[size.name] = bound->second;
        else
          program_.parameters.push_back(size.name);
      }
  declare(def_.inputs, TensorRole::input);
  declare(def_.outputs, TensorRole::output);
  if (def_.outputs.empty()) error(def_.location, fmt::format("def {} has no outputs", quote_name(def_.name)));
  for (const ast::Statement& statement : def_.statements)
    first_write_.emplace(statement.lhs.name, statement.lhs.location);
  for (const ast::Statement& statement : def_.statements) check_statement(statement);
  for (const ast::Param& output : def_.outputs) {
    // Outputs written by a statement that had errors are not reported again.
    if (!first_write_.count(output.name)) error(output.location, fmt::format("output {} is never written", quote_name(output.name)));
  }
  order_tensors();
  return std::move(program_);
}

void DefChecker::order_tensors() {
  std::vector<Tensor> ordered;
  for (const Tensor& tensor : program_.tensors)
    if (tensor.role == TensorRole::input) ordered.push_back(tensor);
  for (const ast::Param& output : def_.outputs)
    for (const Tensor& tensor : program_.tensors)
      if (tensor.name == output.name && tensor.role == TensorRole::output) ordered.push_back(tensor);
  for (const Tensor& tensor : program_.tensors)
    if (tensor.role == TensorRole::temporary) ordered.push_back(tensor);
  program_.tensors = std::move(ordered);
}

void DefChecker::declare(const std::vector<ast::Param>& params, TensorRole role) {
  for (const ast::Param& param : params) {
    const Tensor* previous = find(param.name);
    if (previous || inferred_outputs_.count(param.name)) {
      const auto first = std::find_if(def_.outputs.begin(), def_.outputs.end(),
                                      [&](const ast::Param& output) { return output.name == param.name; });
      error(param.location, fmt::format("duplicate tensor name {} (first declared at {})", quote_name(param.name),
                                        where(previous ? previous->location : first->location)));
      continue;
    }
    if (parse_function(param.name)) {
      error(param.location, fmt::format("tensor name {} is the name of a built-in function",
                                        quote_name(param.name)));
      continue;
    }
    if (param.inferred) {  // created by its first write (build_statement)
      inferred_outputs_.insert(param.name);
      continue;
    }
    source_type_[param.name] = param.type;
    Tensor tensor;
    tensor.name = param.name;
    tensor.type = param.type;
    tensor.role = role;
    tensor.location = param.location;
    for (const ast::SizeRef& size : param.dims) {
      tensor.dims.push_back(Size{size.name, size.value});
      if (!size.name.empty()) size_names_.insert(size.name);
    }
    tensor.extent = tensor_extent(program_, tensor);
    program_.tensors.push_back(std::move(tensor));
  }
}

bool DefChecker::check_subscripts(const ast::Expr& ref, std::vector<std::string>& names,
                                  std::vector<AffineIndex>& subscripts, StatementState& state, bool written) {
  bool ok = true;
  for (const ast::Expr& arg : ref.args) {
    AffineIndex subscript;
    if (written && arg.kind != ast::Expr::Kind::name) {
      error(ast::start_location(arg), fmt::format("the written tensor's subscript {} is not a plain index variable "
                                                  "(only reads take index expressions)",
                                                  quote_name(ast::to_source(arg))), &state);
      ok = false;
    } else if (!to_affine(arg, subscript, state)) {
      ok = false;
    } else if (arg.kind == ast::Expr::Kind::name &&
               std::find(names.begin(), names.end(), arg.name) != names.end()) {
      error(arg.location, fmt::format("index {} appears twice in one tensor reference (diagonal "
                                      "accesses are not supported yet)", quote_name(arg.name)), &state);
      ok = false;
    } else {
      names.push_back(subscript.plain_index());
      subscripts.push_back(std::move(subscript));
    }
  }
  return ok;
}

bool DefChecker::to_affine(const ast::Expr& arg, AffineIndex& out, StatementState& state) {
  switch (arg.kind) {
    case ast::Expr::Kind::number:
      if (!arg.is_integer) {
        error(arg.location, fmt::format("index expressions take integers; {} is not one", quote_name(arg.text)), &state);
        return false;
      }
      if (arg.value > static_cast<double>(limits::max_size_value)) {
        error(arg.location, fmt::format("index constant {} is larger than {}", arg.text, limits::max_size_value),
              &state);
        return false;
      }
      out.constant = static_cast<std::int64_t>(arg.value);
      return true;
    case ast::Expr::Kind::name:
      if (size_names_.count(arg.name)) {
        error(arg.location, fmt::format("index {} has the same name as a size; use another index name", quote_name(arg.name)), &state);
        return false;
      }
      out = AffineIndex::plain(arg.name);
      return true;
    case ast::Expr::Kind::negate: {
      AffineIndex inner;
      if (!to_affine(arg.args.at(0), inner, state)) return false;
      out.add(inner, -1);
      return true;
    }
    case ast::Expr::Kind::binary: {
      AffineIndex lhs, rhs;
      if (arg.op == '/') {
        error(arg.location, fmt::format("index expression {} divides; index expressions are affine (sums of "
                                        "integer multiples of indices)", quote_name(ast::to_source(arg))), &state);
        return false;
      }
      if (!to_affine(arg.args.at(0), lhs, state) || !to_affine(arg.args.at(1), rhs, state)) return false;
      if (arg.op == '*') {
        if (!lhs.terms.empty() && !rhs.terms.empty()) {
          error(arg.location, fmt::format("index expression {} multiplies two indices; index expressions are "
                                          "affine (sums of integer multiples of indices)",
                                          quote_name(ast::to_source(arg))), &state);
          return false;
        }
        const AffineIndex& factor = lhs.terms.empty() ? lhs : rhs;
        out.add(lhs.terms.empty() ? rhs : lhs, factor.constant);
      } else {
        out.add(lhs, 1);
        out.add(rhs, arg.op == '+' ? 1 : -1);
      }
      // Operands within the limit keep every product and sum inside 64 bits.
      const auto too_large = [](std::int64_t v) { return v > limits::max_size_value || -v > limits::max_size_value; };
      if (too_large(out.constant) ||
          std::any_of(out.terms.begin(), out.terms.end(), [&](const auto& term) { return too_large(term.second); })) {
        error(arg.location, fmt::format("index expression {} has a coefficient or a constant beyond {}",
                                        quote_name(ast::to_source(arg)), limits::max_size_value), &state);
        return false;
      }
      return true;
    }
    case ast::Expr::Kind::call:
      error(arg.location, fmt::format("index expression {} is not affine (indices are sums of integer multiples "
                                      "of index variables)", quote_name(ast::to_source(arg))), &state);
      return false;
  }
  return false;
}

void DefChecker::record_use(const std::string& index, const Tensor& tensor, std::size_t dim,
                            SourceLocation at, StatementState& state, bool on_rhs) {
  if (on_rhs && std::find(state.rhs_order.begin(), state.rhs_order.end(), index) == state.rhs_order.end())
    state.rhs_order.push_back(index);
  IndexUse use{tensor.dims[dim], tensor.name, dim, at, ""};
  auto [it, inserted] = state.ranges.emplace(index, use);
  if (inserted || it->second.size == use.size || state.conflicts.count(index)) return;
  state.conflicts.insert(index);
  const IndexUse& first = it->second;
  error(at, fmt::format("index {} ranges over {} ({}) and over {} ({})", quote_name(index),
                        first.size.to_string(), first.describe(), use.size.to_string(), use.describe()),
        &state);
}

Expr DefChecker::lower(const ast::Expr& expr, StatementState& state) {
  switch (expr.kind) {
    case ast::Expr::Kind::number: return Expr::constant_node(expr.value, expr.location);
    case ast::Expr::Kind::name: return lower_size_value(expr, state);
    case ast::Expr::Kind::negate:
      return Expr::negate_node(lower(expr.args.at(0), state), expr.location);
    case ast::Expr::Kind::binary: {
      BinaryOp op = expr.op == '+' ? BinaryOp::add
                  : expr.op == '-' ? BinaryOp::sub
                  : expr.op == '*' ? BinaryOp::mul : BinaryOp::div;
      Expr lhs = lower(expr.args.at(0), state);
      Expr rhs = lower(expr.args.at(1), state);
      return Expr::binary_node(op, std::move(lhs), std::move(rhs), expr.location);
    }
    case ast::Expr::Kind::call: return lower_call(expr, state);
  }
  PF_INTERNAL_CHECK(false, "unknown expression kind");
}

// A size used as a value (`x(i) / N`): its bound value, a constant exact in f32 and in
// every element type's arithmetic. Unbound sizes and index variables as values are
// reported.
Expr DefChecker::lower_size_value(const ast::Expr& expr, StatementState& state) {
  constexpr std::int64_t exact_in_f32 = std::int64_t{1} << 24;
  auto bound = program_.size_bindings.find(expr.name);
  if (bound != program_.size_bindings.end()) {
    if (bound->second > exact_in_f32)
      error(expr.location, fmt::format("size {} = {} is used as a value, but values above 2^24 = {} are not exact in "
                                       "f32", quote_name(expr.name), bound->second, exact_in_f32), &state);
    return Expr::constant_node(static_cast<double>(bound->second), expr.location);
  }
  if (std::find(program_.parameters.begin(), program_.parameters.end(), expr.name) != program_.parameters.end())
    error(expr.location, fmt::format("size {} is used as a value, which needs its value at compile time: bind it "
                                     "(`sizes` {}=VALUE)", quote_name(expr.name), expr.name), &state);
  else
    error(expr.location, fmt::format("{} is used as a value; only sizes can be (index variables and scalars in "
                                     "expressions are not supported yet)", quote_name(expr.name)), &state);
  return Expr::constant_node(0, expr.location);
}

Expr DefChecker::lower_call(const ast::Expr& expr, StatementState& state) {
  if (auto function = parse_function(expr.name)) {
    int expected = arity(*function);
    if (static_cast<int>(expr.args.size()) != expected) {
      error(expr.location, fmt::format("function {} takes {} argument{}, got {}", quote_name(expr.name),
                                       expected, expected == 1 ? "" : "s", expr.args.size()), &state);
      return Expr::constant_node(0, expr.location);
    }
    std::vector<Expr> operands;
    for (const ast::Expr& arg : expr.args) operands.push_back(lower(arg, state));
    return Expr::call_node(*function, std::move(operands), expr.location);
  }
  const Tensor* tensor = find(expr.name);
  if (!tensor && poisoned_.count(expr.name)) {
    state.failed = true;  // already reported at its write
    return Expr::constant_node(0, expr.location);
  }
  if (!tensor) {
    auto later = first_write_.find(expr.name);
    bool plain = std::all_of(expr.args.begin(), expr.args.end(), [](const ast::Expr& a) {
      return a.kind == ast::Expr::Kind::name;
    });
    if (later != first_write_.end())
      error(expr.location, fmt::format("{} {} is read before it is written (first written "
                                       "at {})", unwritten_kind(expr.name), quote_name(expr.name),
                                       where(later->second)), &state);
    else if (plain)
      error(expr.location, fmt::format("undeclared tensor {}", quote_name(expr.name)), &state);
    else
      error(expr.location, fmt::format("unknown function {} (the functions are {})", quote_name(expr.name),
                                       function_names()), &state);
    return Expr::constant_node(0, expr.location);
  }
  std::vector<std::string> names;
  std::vector<AffineIndex> subscripts;
  if (!check_subscripts(expr, names, subscripts, state, false)) return Expr::constant_node(0, expr.location);
  if (expr.args.size() != tensor->rank()) {
    error(expr.location, fmt::format("tensor {} has {} dimension{} but is indexed with {} "
                                     "ind{}", quote_name(tensor->name), tensor->rank(),
                                     tensor->rank() == 1 ? "" : "s", expr.args.size(),
                                     expr.args.size() == 1 ? "ex" : "ices"), &state);
    return Expr::constant_node(0, expr.location);
  }
  const bool padded = state.outside_values.count(tensor->name) > 0;
  for (std::size_t d = 0; d < names.size(); ++d) {
    if (!names[d].empty()) {
      record_use(names[d], *tensor, d, expr.args[d].location, state, true);
      continue;
    }
    for (const auto& term : subscripts[d].terms)
      if (std::find(state.rhs_order.begin(), state.rhs_order.end(), term.first) == state.rhs_order.end())
        state.rhs_order.push_back(term.first);
    if (!padded) state.affine_uses.push_back(AffineUse{subscripts[d], tensor->name, d, ast::start_location(expr.args[d])});
  }
  if (state.reads.size() >= limits::max_reads_per_statement) {
    error(expr.location, fmt::format("too many tensor references in one statement (the limit is {})",
                                     limits::max_reads_per_statement), &state);
    return Expr::constant_node(0, expr.location);
  }
  state.reads.push_back(PendingRead{tensor->name, names, subscripts, expr.location});
  return Expr::read_node(static_cast<int>(state.reads.size() - 1), expr.location);
}

void DefChecker::check_statement(const ast::Statement& statement) {
  StatementState state;
  const ast::Expr& lhs = statement.lhs;
  if (parse_function(lhs.name)) {
    error(lhs.location, fmt::format("cannot assign to the built-in function {}", quote_name(lhs.name)));
    return;
  }
  std::vector<std::string> lhs_indices;
  std::vector<AffineIndex> lhs_subscripts;
  bool lhs_ok = check_subscripts(lhs, lhs_indices, lhs_subscripts, state, true);
  Tensor* target = find(lhs.name);
  if (target && target->role == TensorRole::input) {
    error(lhs.location, fmt::format("cannot write input tensor {}", quote_name(lhs.name)));
    return;
  }
  if (target && lhs_ok && lhs.args.size() != target->rank()) {
    error(lhs.location, fmt::format("tensor {} has {} dimension{} but is indexed with {} ind{}",
                                    quote_name(target->name), target->rank(), target->rank() == 1 ? "" : "s",
                                    lhs.args.size(), lhs.args.size() == 1 ? "ex" : "ices"), &state);
    lhs_ok = false;
  }
  if (target && lhs_ok)
    for (std::size_t d = 0; d < lhs_indices.size(); ++d)
      record_use(lhs_indices[d], *target, d, lhs.args[d].location, state, false);
  if (!target && statement.op == ast::AssignOp::reduce)
    error(statement.op_location,
          fmt::format("'{}' accumulates into {} {}, which has no value yet; use '{}' to start a {} reduction",
                      ast::spelling(statement.op, statement.reduction), unwritten_kind(lhs.name), quote_name(lhs.name),
                      ast::spelling(ast::AssignOp::reduce_init, statement.reduction),
                      statement.reduction == ReductionOp::sum ? "zero-initialised" : "new"),
          &state);
  check_where_clauses(statement, state);
  Expr rhs = lower(statement.rhs, state);
  bool ok = check_kind_and_ranges(statement, lhs_indices, state, lhs_ok);
  if (!ok && !target) poisoned_.insert(lhs.name);
  if (!ok) return;
  build_statement(statement, lhs_indices, std::move(rhs), state, target);
}

bool DefChecker::check_kind_and_ranges(const ast::Statement& statement,
                                       const std::vector<std::string>& lhs_indices,
                                       StatementState& state, bool lhs_ok) {
  const ast::Expr& lhs = statement.lhs;
  if (state.failed || !lhs_ok) return false;

  for (const ast::RangeClause& range : statement.ranges)
    if (std::find(lhs_indices.begin(), lhs_indices.end(), range.index) == lhs_indices.end() &&
        std::find(state.rhs_order.begin(), state.rhs_order.end(), range.index) == state.rhs_order.end()) {
      error(range.location, fmt::format("the where clause gives a range to {}, which is not an index of the "
                                        "statement", quote_name(range.index)));
      return false;
    }
  for (const ast::BoundaryClause& boundary : statement.boundaries)
    if (std::none_of(state.reads.begin(), state.reads.end(),
                     [&](const PendingRead& read) { return read.tensor == boundary.tensor; })) {
      error(boundary.location, fmt::format("the where clause gives the value outside {}, which the statement "
                                           "does not read", quote_name(boundary.tensor)));
      return false;
    }
  infer_ranges(lhs_indices, state);
  if (state.failed) return false;
  std::vector<std::string> reductions = reduction_indices(lhs_indices, state);
  if (statement.op == ast::AssignOp::assign && !reductions.empty()) {
    error(statement.op_location,
          fmt::format("index {} appears only on the right-hand side, which makes this a reduction; "
                      "use '+=!' (zero-initialised) or '+=' instead of '='", quote_name(reductions[0])));
    return false;
  }
  for (std::size_t d = 0; d < lhs_indices.size(); ++d)
    if (!state.ranges.count(lhs_indices[d]) &&
        std::find(state.rhs_order.begin(), state.rhs_order.end(), lhs_indices[d]) != state.rhs_order.end()) {
      error(lhs.args[d].location, unranged_message(lhs_indices[d]));
      return false;
    } else if (!state.ranges.count(lhs_indices[d])) {
      error(lhs.args[d].location,
            fmt::format("cannot infer the range of index {} of {} {}: it does not appear on "
                        "the right-hand side", quote_name(lhs_indices[d]), unwritten_kind(lhs.name),
                        quote_name(lhs.name)));
      return false;
    }
  for (const std::string& index : reductions)
    if (!state.ranges.count(index)) {
      error(statement.location, unranged_message(index));
      return false;
    }
  return true;
}

void DefChecker::check_where_clauses(const ast::Statement& statement, StatementState& state) {
  for (const ast::BoundaryClause& boundary : statement.boundaries) {
    const Tensor* tensor = find(boundary.tensor);
    if (!tensor) {
      error(boundary.location, fmt::format("the where clause gives the value outside {}, which is not a tensor",
                                           quote_name(boundary.tensor)), &state);
    } else if (!state.outside_values.emplace(boundary.tensor, boundary.value).second) {
      error(boundary.location, fmt::format("the value outside {} is stated twice", quote_name(boundary.tensor)),
            &state);
    }
  }
  for (const ast::RangeClause& range : statement.ranges) {
    if (size_names_.count(range.index)) {
      error(range.location, fmt::format("the where clause gives a range to the size {}; ranges are for index "
                                        "variables", quote_name(range.index)), &state);
      continue;
    }
    if (!(range.lower.kind == ast::Expr::Kind::number && range.lower.is_integer && range.lower.value == 0)) {
      error(ast::start_location(range.lower),
            fmt::format("the range of {} starts at {}; ranges start at 0 (write 'where {} in 0:N' and shift the "
                        "index expressions)", quote_name(range.index), quote_name(ast::to_source(range.lower)),
                        range.index), &state);
      continue;
    }
    std::optional<Size> size = range_bound(range.upper, state);
    if (!size) continue;
    IndexUse use{*size, "", 0, range.location, "the where clause"};
    auto [it, inserted] = state.ranges.emplace(range.index, use);
    if (!inserted && !(it->second.size == use.size) && state.conflicts.insert(range.index).second)
      error(range.location, fmt::format("index {} ranges over {} ({}) and over {} ({})", quote_name(range.index),
                                        it->second.size.to_string(), it->second.describe(), use.size.to_string(),
                                        use.describe()), &state);
  }
}

std::optional<Size> DefChecker::range_bound(const ast::Expr& expr, StatementState& state) {
  if (expr.kind == ast::Expr::Kind::name && size_names_.count(expr.name)) return Size{expr.name, 0};
  if (expr.kind == ast::Expr::Kind::number && expr.is_integer) {
    if (expr.value < 1) {
      error(expr.location, fmt::format("the range ends at {}; a range holds at least one value", expr.text), &state);
      return std::nullopt;
    }
    if (expr.value > static_cast<double>(limits::max_size_value)) {
      error(expr.location, fmt::format("the range ends at {}, beyond the largest size {}", expr.text,
                                       limits::max_size_value), &state);
      return std::nullopt;
    }
    return Size{"", static_cast<std::int64_t>(expr.value)};
  }
  // A sum of sizes: its value, which needs every size bound.
  std::function<std::optional<std::int64_t>(const ast::Expr&)> value = [&](const ast::Expr& e) -> std::optional<std::int64_t> {
    switch (e.kind) {
      case ast::Expr::Kind::number:
        if (e.is_integer && e.value <= static_cast<double>(limits::max_size_value))
          return static_cast<std::int64_t>(e.value);
        break;
      case ast::Expr::Kind::name: {
        auto bound = program_.size_bindings.find(e.name);
        if (bound != program_.size_bindings.end()) return bound->second;
        if (size_names_.count(e.name))
          error(e.location, fmt::format("the range bound {} uses the size {}, which must then be bound (-D {}=VALUE)",
                                        quote_name(ast::to_source(expr)), quote_name(e.name), e.name), &state);
        else
          error(e.location, fmt::format("{} in a range bound is not a size", quote_name(e.name)), &state);
        return std::nullopt;
      }
      case ast::Expr::Kind::negate:
        if (auto inner = value(e.args.at(0))) return -*inner;
        return std::nullopt;
      case ast::Expr::Kind::binary: {
        auto lhs = value(e.args.at(0));
        auto rhs = lhs ? value(e.args.at(1)) : std::nullopt;
        if (!lhs || !rhs) return std::nullopt;
        // Operands within the limit keep every result inside 64 bits; the result is checked below.
        const auto clamp = [](std::int64_t v) {
          return std::clamp<std::int64_t>(v, -limits::max_size_value - 1, limits::max_size_value + std::int64_t{1});
        };
        if (e.op == '+') return clamp(*lhs + *rhs);
        if (e.op == '-') return clamp(*lhs - *rhs);
        if (e.op == '*') return clamp(*lhs * *rhs);
        break;
      }
      case ast::Expr::Kind::call: break;
    }
    error(e.location, fmt::format("a range bound is a sum of sizes and integers; {} is not",
                                  quote_name(ast::to_source(e))), &state);
    return std::nullopt;
  };
  std::optional<std::int64_t> bound = value(expr);
  if (!bound) return std::nullopt;
  if (*bound > limits::max_size_value) {
    error(ast::start_location(expr), fmt::format("the range ends beyond the largest size {}", limits::max_size_value),
          &state);
    return std::nullopt;
  }
  if (*bound < 1) {
    error(ast::start_location(expr), fmt::format("the range bound {} is {}; a range holds at least one value",
                                                 quote_name(ast::to_source(expr)), *bound), &state);
    return std::nullopt;
  }
  return Size{"", *bound};
}

void DefChecker::infer_ranges(const std::vector<std::string>& lhs_indices, StatementState& state) {
  std::vector<std::string> all = lhs_indices;
  for (const std::string& index : state.rhs_order)
    if (std::find(all.begin(), all.end(), index) == all.end()) all.push_back(index);
  for (bool progress = true; progress && !state.failed;) {
    progress = false;
    for (const std::string& index : all) {
      if (state.ranges.count(index)) continue;
      std::optional<isl::set> range;
      const AffineUse* first = nullptr;
      for (const AffineUse& use : state.affine_uses) {
        if (use.subscript.coefficient(index) == 0) continue;
        std::vector<IterationIndex> known;
        bool ready = true;
        for (const auto& [other, coefficient] : use.subscript.terms) {
          if (other == index) continue;
          auto found = state.ranges.find(other);
          if (found == state.ranges.end()) ready = false;
          else known.push_back(IterationIndex{other, found->second.size, false});
        }
        if (!ready) continue;
        isl::set values = subscript_range(program_, known, index, use.subscript, find(use.tensor)->dims[use.dim]);
        if (!range) {
          range = values;
          first = &use;
        } else if (!range->is_equal(values)) {
          error(use.location, fmt::format("index {} keeps {} inside {} for {} but keeps {} inside {} (at {}) for {}; "
                                          "state its range with 'where {} in 0:N'", quote_name(index),
                                          quote_name(use.subscript.to_string()), use.tensor, range_text(values),
                                          quote_name(first->subscript.to_string()), first->tensor,
                                          where(first->location), range_text(*range), index), &state);
          return;
        }
      }
      if (!range) continue;
      std::optional<Size> size = range_size(program_, *range);
      if (!size) {
        error(first->location, fmt::format("index {} keeps {} inside {} for the values {}, a range whose extent is "
                                           "not one size of the def{}; state its range over a size P with 'where {} in "
                                           "0:P'", quote_name(index), quote_name(first->subscript.to_string()),
                                           first->tensor, range_text(range->gist_params(program_.assumptions())),
                                           program_.parameters.empty() ? "" : " (bind the sizes it depends on: -D NAME=VALUE, or the API's bind)",
                                           index), &state);
        return;
      }
      state.ranges.emplace(index, IndexUse{*size, first->tensor, first->dim, first->location, ""});
      progress = true;
    }
  }
}

bool DefChecker::check_reads_inside(const Statement& statement, StatementState& state) {
  for (const Access& read : statement.reads) {
    if (read.outside_value) continue;
    const Tensor* tensor = find(read.tensor);
    for (const OutsideDimension& outside : dimensions_outside(read, *tensor, program_.assumptions())) {
      const Size& size = tensor->dims[outside.dim];
      error(read.location,
            fmt::format("{}({}) reads outside tensor {}: in dimension {} the subscript {} takes the values {}, but "
                        "dimension {} of size {} holds {}; state the value read outside with 'where {} = 0 outside', or "
                        "narrow the range with 'where'", read.tensor, subscripts_text(read.subscripts),
                        quote_name(read.tensor), outside.dim + 1,
                        quote_name(read.subscripts[outside.dim].to_string()),
                        range_text(outside.values.gist_params(program_.assumptions())), outside.dim + 1,
                        size_text(size, program_), range_text(outside.allowed.gist_params(program_.assumptions())),
                        read.tensor), &state);
    }
  }
  return !state.failed;
}

std::vector<std::string> DefChecker::reduction_indices(const std::vector<std::string>& lhs_indices,
                                                       const StatementState& state) {
  std::vector<std::string> reductions;
  for (const std::string& index : state.rhs_order)
    if (std::find(lhs_indices.begin(), lhs_indices.end(), index) == lhs_indices.end())
      reductions.push_back(index);
  return reductions;
}

void DefChecker::build_statement(const ast::Statement& statement,
                                 const std::vector<std::string>& lhs_indices, Expr rhs,
                                 StatementState& state, const Tensor* target) {
  const ast::Expr& lhs = statement.lhs;
  std::vector<std::string> reductions = reduction_indices(lhs_indices, state);
  Statement out;
  out.id = fmt::format("S{}", next_statement_++);
  out.kind = statement.op == ast::AssignOp::assign ? StatementKind::assign
           : statement.op == ast::AssignOp::reduce_init ? StatementKind::reduce_init
                                                        : StatementKind::reduce;
  if (out.is_reduction()) out.reduction = statement.reduction;
  for (const std::string& index : lhs_indices)
    out.indices.push_back(IterationIndex{index, state.ranges.at(index).size, false});
  for (const std::string& index : reductions)
    out.indices.push_back(IterationIndex{index, state.ranges.at(index).size, true});
  if (out.is_reduction()) {
    out.accumulate_type = ElementType::f32;
  } else if (!state.reads.empty()) {
    out.accumulate_type = find(state.reads[0].tensor)->type;
    for (const PendingRead& read : state.reads)
      out.accumulate_type = common_type(out.accumulate_type, find(read.tensor)->type);
  }
  // isl/cpp.h cannot copy null objects: every relation is built before it is stored.
  out.domain = statement_domain(program_, out.id, out.indices);
  std::vector<std::string> names = out.index_names();
  std::vector<AffineIndex> lhs_subscripts;
  for (const std::string& index : lhs_indices) lhs_subscripts.push_back(AffineIndex::plain(index));
  out.write = Access{lhs.name, lhs_indices, access_relation(out.domain, names, lhs.name, lhs_subscripts),
                     lhs.location, lhs_subscripts, std::nullopt};
  for (const PendingRead& read : state.reads) {
    auto outside = state.outside_values.find(read.tensor);
    out.reads.push_back(Access{read.tensor, read.indices,
                               access_relation(out.domain, names, read.tensor, read.subscripts), read.location,
                               read.subscripts,
                               outside == state.outside_values.end() ? std::nullopt
                                                                     : std::optional<double>(outside->second)});
  }
  if (!check_reads_inside(out, state)) {
    if (!target) poisoned_.insert(lhs.name);
    return;
  }
  out.expr = std::move(rhs);
  out.location = statement.location;
  if (!target) {
    // What the new tensor's values come from: the common type of the tensors it reads
    // (through temporaries, back to inputs); f32 for a constant.
    std::optional<ElementType> source;
    for (const PendingRead& read : state.reads) {
      const ElementType type = source_type_.at(read.tensor);
      source = source ? common_type(*source, type) : type;
    }
    source_type_[lhs.name] = source.value_or(ElementType::f32);
    const bool output = inferred_outputs_.count(lhs.name) > 0;
    Tensor temporary;
    temporary.name = lhs.name;
    temporary.type = output ? source_type_[lhs.name] : out.accumulate_type;
    temporary.role = output ? TensorRole::output : TensorRole::temporary;
    temporary.location = lhs.location;
    for (const std::string& index : lhs_indices) temporary.dims.push_back(state.ranges.at(index).size);
    temporary.extent = tensor_extent(program_, temporary);
    program_.tensors.push_back(std::move(temporary));
  }
  program_.statements.push_back(std::move(out));
}

}  // namespace

Program analyze_def(const ast::Def& def, const SizeBindings& sizes, const IslContextHandle& context,
                    DiagnosticSink& sink) {
  return DefChecker(def, sizes, context, sink).run();
}

}  // namespace polyfuse
