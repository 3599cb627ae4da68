// The checker of one def (sema.h's analyze_def), shared by its two files: sema.cc (the
// statements, their expressions and the tensors they declare and write) and
// sema_subscripts.cc (subscripts as affine expressions, `where` clauses, index ranges inferred
// from sums, reads that leave their tensor). Internal to frontend/.
#pragma once

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/affine_index.h"
#include "frontend/sema.h"

namespace polyfuse::sema_detail {

inline std::string where(SourceLocation location) {
  return fmt::format("{}:{}", location.line, location.col);
}

// Why an index that appears only in index expressions has no range.
inline std::string unranged_message(const std::string& index) {
  return fmt::format("cannot infer the range of index {}: it appears only in sums whose other indices have no "
                     "range, or in reads with a value outside; state it with 'where {} in 0:N'",
                     quote_name(index), index);
}

// "n, h + r, w + s, c".
inline std::string subscripts_text(const std::vector<AffineIndex>& subscripts) {
  std::string text;
  for (const AffineIndex& subscript : subscripts) text += (text.empty() ? "" : ", ") + subscript.to_string();
  return text;
}

// "H" or "H=8" (bound), or "7".
inline std::string size_text(const Size& size, const Program& program) {
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
  bool is_index = false;  // an index tensor's read inside another read's subscript (a gather)
};

// What one statement collects while it is checked.
struct StatementState {
  std::vector<PendingRead> reads;
  std::map<std::string, IndexUse> ranges;
  std::vector<std::string> rhs_order;  // indices in order of first use on the right
  std::set<std::string> conflicts;     // indices already reported as conflicting
  std::vector<AffineUse> affine_uses;  // subscripts that are sums, of tensors read inside
  std::map<std::string, double> outside_values;  // `where T = v outside`
  std::vector<std::pair<std::string, SourceLocation>> index_values;  // names used as values that are not sizes
  bool in_gather = false;  // checking an index tensor's subscripts (gathers do not nest)
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
  // `arg` as an affine expression of index variables, plus at most one index tensor's element
  // (a gather); false (reported) when it is not.
  bool to_affine(const ast::Expr& arg, AffineIndex& out, StatementState& state);
  // `arg`, a reference to tensor `index` inside a subscript, as a gather (sema_gathers.cc):
  // `index` must hold integers; its read is recorded in `state`.
  bool to_gather(const ast::Expr& arg, const Tensor& index, AffineIndex& out, StatementState& state);
  // Refuses a division of two integer values in `expr` (sema_gathers.cc): TC divides integers
  // with truncation, polyfuse computes in f32. False (reported) when there is one.
  bool check_integer_division(const Expr& expr, const Statement& statement, StatementState& state);
  // The `where` clauses of `statement`: boundary values, then stated ranges.
  void check_where_clauses(const ast::Statement& statement, StatementState& state);
  // A size expression of a `where` range (`P`, `16`, `H - R + 1` with H and R bound).
  std::optional<Size> range_bound(const ast::Expr& expr, StatementState& state);
  // Ranges of the indices that appear only in sums (index_ranges.h); an index kept inside
  // several tensors by sums takes the values that keep it inside all of them (TC's rule).
  void infer_ranges(const std::vector<std::string>& lhs_indices, StatementState& state);
  // Reports every read that leaves its tensor without a stated outside value; false if any.
  bool check_reads_inside(const Statement& statement, StatementState& state);
  void record_use(const std::string& index, const Tensor& tensor, std::size_t dim,
                  SourceLocation at, StatementState& state, bool on_rhs);
  Expr lower(const ast::Expr& expr, StatementState& state);
  Expr lower_call(const ast::Expr& expr, StatementState& state);
  Expr lower_size_value(const ast::Expr& expr, StatementState& state);
  // A comparison, `&&`, `||`, `!` or `?:` (sema_conditions.cc): operands checked to be
  // conditions or values as each operator takes them.
  Expr lower_condition(const ast::Expr& expr, StatementState& state);
  // `float(x)` / `f32(x)`: x (every expression computes in f32); other casts are reported.
  Expr lower_cast(const ast::Expr& expr, StatementState& state);
  // `expr` lowered, reported unless it is a value (not a condition).
  Expr lower_value(const ast::Expr& expr, StatementState& state);
  // Checks that every name used as a value is an index of the statement (one with a
  // range from a subscript or a `where` clause); false (reported) when one is not.
  bool check_index_values(const std::vector<std::string>& lhs_indices, const ast::Statement& statement,
                          StatementState& state);
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

}  // namespace polyfuse::sema_detail
