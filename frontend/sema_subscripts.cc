// DefChecker's subscripts and ranges (def_checker.h): subscripts as affine expressions of the
// indices, `where` clauses (stated ranges, values read outside a tensor), ranges of indices
// that appear only in sums (inferred with isl, index_ranges.h), and reads that leave their
// tensor.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "frontend/def_checker.h"
#include "frontend/index_ranges.h"
#include "frontend/limits.h"
#include "frontend/polyhedral_model.h"

namespace polyfuse::sema_detail {

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
    } else if (written && size_names_.count(arg.name)) {
      error(arg.location, fmt::format("index {} of the written tensor has the same name as a size; use another index "
                                      "name", quote_name(arg.name)), &state);
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
        // A size in an index expression is a constant (`rf - DILATION_FACTOR`), as in TC.
        auto bound = program_.size_bindings.find(arg.name);
        if (bound == program_.size_bindings.end()) {
          error(arg.location, fmt::format("size {} is used in an index expression, which needs its value at compile "
                                          "time: bind it (-D {}=VALUE, or the API's bind)", quote_name(arg.name),
                                          arg.name), &state);
          return false;
        }
        out.constant = bound->second;
        return true;
      }
      if (find(arg.name) || inferred_outputs_.count(arg.name)) {
        error(arg.location, fmt::format("tensor {} is used as an index: a subscript is an affine expression of index "
                                        "variables and sizes", quote_name(arg.name)), &state);
        return false;
      }
      out = AffineIndex::plain(arg.name);
      return true;
    case ast::Expr::Kind::negate: {
      AffineIndex inner;
      if (!to_affine(arg.args.at(0), inner, state)) return false;
      if (inner.is_gather()) {
        error(arg.location, fmt::format("index expression {} negates an index tensor's value; a gather adds it "
                                        "(write 'I(b)' or 'I(b) + i')", quote_name(ast::to_source(arg))), &state);
        return false;
      }
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
      if (lhs.is_gather() || rhs.is_gather()) {
        if (arg.op == '*' || (arg.op == '-' && rhs.is_gather()) || (lhs.is_gather() && rhs.is_gather())) {
          error(arg.location, fmt::format("index expression {} {} an index tensor's value; a gather adds one index "
                                          "tensor's value to an affine index ('I(b)', 'I(b) + i', 'I(b) - 1')",
                                          quote_name(ast::to_source(arg)),
                                          arg.op == '*' ? "multiplies" : lhs.is_gather() && rhs.is_gather() ? "adds to"
                                                                                                             : "subtracts"),
                &state);
          return false;
        }
        out.gather = lhs.is_gather() ? lhs.gather : rhs.gather;
        out.gather_text = lhs.is_gather() ? lhs.gather_text : rhs.gather_text;
      }
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
      if (const Tensor* index = find(arg.name)) return to_gather(arg, *index, out, state);
      [[fallthrough]];
    case ast::Expr::Kind::compare:
    case ast::Expr::Kind::logical:
    case ast::Expr::Kind::logical_not:
    case ast::Expr::Kind::select:
      error(ast::start_location(arg), fmt::format("index expression {} is not affine (indices are sums of integer multiples "
                                      "of index variables)", quote_name(ast::to_source(arg))), &state);
      return false;
  }
  return false;
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
      default: break;  // calls, comparisons, logical operators and `?:` are not sizes
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
          // TC's rule: the index takes the values that keep every such read inside its tensor.
          const isl::set both = range->intersect(values);
          if (both.is_empty()) {
            error(use.location, fmt::format("index {} keeps {} inside {} for {} but keeps {} inside {} (at {}) for {}: "
                                            "no value keeps both inside", quote_name(index),
                                            quote_name(use.subscript.to_string()), use.tensor, range_text(values),
                                            quote_name(first->subscript.to_string()), first->tensor,
                                            where(first->location), range_text(*range)), &state);
            return;
          }
          range = both;
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


}  // namespace polyfuse::sema_detail
