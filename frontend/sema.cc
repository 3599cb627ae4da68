#include "frontend/sema.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "frontend/def_checker.h"
#include "frontend/limits.h"
#include "frontend/polyhedral_model.h"
#include "frontend/value_type.h"

namespace polyfuse {
namespace sema_detail {

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
    if (role == TensorRole::output)
      if (const std::optional<std::string> rule = output_type_rule(param.type))
        error(param.type_location, fmt::format("output {} is {}: {}", quote_name(param.name), to_string(param.type), *rule));
    source_type_[param.name] = computed_type(param.type);
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
    case ast::Expr::Kind::number: {
      Expr constant = Expr::constant_node(expr.value, expr.location);
      constant.integer = expr.is_integer;
      return constant;
    }
    case ast::Expr::Kind::name: return lower_size_value(expr, state);
    case ast::Expr::Kind::negate:
      return Expr::negate_node(lower_value(expr.args.at(0), state), expr.location);
    case ast::Expr::Kind::binary: {
      BinaryOp op = expr.op == '+' ? BinaryOp::add
                  : expr.op == '-' ? BinaryOp::sub
                  : expr.op == '*' ? BinaryOp::mul : BinaryOp::div;
      Expr lhs = lower_value(expr.args.at(0), state);
      Expr rhs = lower_value(expr.args.at(1), state);
      return Expr::binary_node(op, std::move(lhs), std::move(rhs), expr.location);
    }
    case ast::Expr::Kind::call: return lower_call(expr, state);
    case ast::Expr::Kind::compare:
    case ast::Expr::Kind::logical:
    case ast::Expr::Kind::logical_not:
    case ast::Expr::Kind::select: return lower_condition(expr, state);
  }
  PF_INTERNAL_CHECK(false, "unknown expression kind");
}

// A name used as a value (`x(i) / N`, `i == 0 ? ..`): a bound size is its value, a
// constant exact in f32 and in every element type's arithmetic; a tensor with no dimensions
// (a scalar parameter) is read; any other name is an index value, checked once the statement's indices are known (check_index_values).
Expr DefChecker::lower_size_value(const ast::Expr& expr, StatementState& state) {
  constexpr std::int64_t exact_in_f32 = std::int64_t{1} << 24;
  auto bound = program_.size_bindings.find(expr.name);
  if (bound != program_.size_bindings.end()) {
    if (bound->second > exact_in_f32)
      error(expr.location, fmt::format("size {} = {} is used as a value, but values above 2^24 = {} are not exact in "
                                       "f32", quote_name(expr.name), bound->second, exact_in_f32), &state);
    Expr constant = Expr::constant_node(static_cast<double>(bound->second), expr.location);
    constant.integer = true;
    return constant;
  }
  if (std::find(program_.parameters.begin(), program_.parameters.end(), expr.name) != program_.parameters.end())
    error(expr.location, fmt::format("size {} is used as a value, which needs its value at compile time: bind it "
                                     "(`sizes` {}=VALUE)", quote_name(expr.name), expr.name), &state);
  else if (const Tensor* tensor = find(expr.name); tensor && tensor->rank() == 0) {
    // A scalar (a tensor with no dimensions) is read by its name alone: `momentum * mean(c)`.
    ast::Expr read = expr;
    read.kind = ast::Expr::Kind::call;
    return lower_call(read, state);
  } else if (find(expr.name) || inferred_outputs_.count(expr.name))
    error(expr.location, fmt::format("tensor {} is used as a value without its subscripts (write {}(i, ...))",
                                     quote_name(expr.name), expr.name), &state);
  else
    state.index_values.emplace_back(expr.name, expr.location);
  return Expr::index_node(expr.name, expr.location);
}

Expr DefChecker::lower_call(const ast::Expr& expr, StatementState& state) {
  // f16(x), bf16(x), f32(x) and their TC spellings are conversions (functions); other type names
  // are casts polyfuse refuses.
  const std::optional<ElementType> cast_type = parse_element_type(expr.name);
  if (!find(expr.name) && !parse_function(expr.name) &&
      (unsupported_type_reason(expr.name) || (cast_type && (is_integer(*cast_type) || is_fp8(*cast_type)))))
    return lower_cast(expr, state);
  if (auto function = parse_function(expr.name)) {
    int expected = arity(*function);
    if (static_cast<int>(expr.args.size()) != expected) {
      error(expr.location, fmt::format("function {} takes {} argument{}, got {}", quote_name(expr.name),
                                       expected, expected == 1 ? "" : "s", expr.args.size()), &state);
      return Expr::constant_node(0, expr.location);
    }
    std::vector<Expr> operands;
    for (const ast::Expr& arg : expr.args) operands.push_back(lower_value(arg, state));
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
    // A gather's affine part ranges over what the index tensor's values leave: no range from it.
    if (!padded && !subscripts[d].is_gather()) state.affine_uses.push_back(AffineUse{subscripts[d], tensor->name, d, ast::start_location(expr.args[d])});
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
  Expr rhs = lower_value(statement.rhs, state);
  bool ok = check_index_values(lhs_indices, statement, state) && check_kind_and_ranges(statement, lhs_indices, state, lhs_ok);
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
  std::optional<ElementType> read_type;  // of the values read (not the index tensors of gathers)
  for (const PendingRead& read : state.reads)
    if (!read.is_index) read_type = read_type ? common_type(*read_type, find(read.tensor)->type) : find(read.tensor)->type;
  if (!out.is_reduction() && read_type && !is_integer(*read_type)) out.accumulate_type = computed_type(*read_type);
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
                               access_relation(out.domain, names, read.tensor, read.subscripts, find(read.tensor)->extent),
                               read.location, read.subscripts,
                               outside == state.outside_values.end() ? std::nullopt
                                                                     : std::optional<double>(outside->second)});
    out.reads.back().is_index = read.is_index;
  }
  if (!check_reads_inside(out, state)) {
    if (!target) poisoned_.insert(lhs.name);
    return;
  }
  // `T(m, h) = f16(...)`: a right-hand side that is a conversion gives the new tensor its type.
  // (a flag and a type rather than an optional: GCC 12 warns of a maybe-uninitialized optional here)
  const bool is_conversion = !out.is_reduction() && rhs.kind == ExprKind::call && conversion_type(rhs.function);
  const ElementType converted = is_conversion ? *conversion_type(rhs.function) : ElementType::f32;
  out.expr = std::move(rhs);
  out.location = statement.location;
  if (!check_integer_division(out.expr, out, state)) {
    if (!target) poisoned_.insert(lhs.name);
    return;
  }
  // TC's typing: an expression of integers (integer tensors, literals, index values) is an integer.
  const ElementType expression_type = value_type(out.expr, program_, out.reads);
  if (!target) {
    // What the new tensor's values come from: the common type of the tensors it reads
    // (through temporaries, back to inputs); f32 for a constant.
    std::optional<ElementType> source;
    for (const PendingRead& read : state.reads) {
      if (read.is_index) continue;
      const ElementType type = source_type_.at(read.tensor);
      source = source ? common_type(*source, type) : type;
    }
    if (is_integer(expression_type)) source = expression_type;
    else if (source && is_integer(*source)) source = ElementType::f32;  // integers read into a float value
    source_type_[lhs.name] = is_conversion ? converted : source.value_or(ElementType::f32);
    const bool output = inferred_outputs_.count(lhs.name) > 0;
    Tensor temporary;
    temporary.name = lhs.name;
    temporary.type = is_conversion ? converted : output ? source_type_[lhs.name] : out.accumulate_type;
    temporary.role = output ? TensorRole::output : TensorRole::temporary;
    temporary.location = lhs.location;
    for (const std::string& index : lhs_indices) temporary.dims.push_back(state.ranges.at(index).size);
    temporary.extent = tensor_extent(program_, temporary);
    program_.tensors.push_back(std::move(temporary));
  }
  program_.statements.push_back(std::move(out));
}

}  // namespace sema_detail

Program analyze_def(const ast::Def& def, const SizeBindings& sizes, const IslContextHandle& context,
                    DiagnosticSink& sink) {
  return sema_detail::DefChecker(def, sizes, context, sink).run();
}

}  // namespace polyfuse