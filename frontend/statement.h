// Statements of the polyhedral IR.
//
// A statement `C(m, n) +=! A(m, k) * B(k, n)` becomes
//   id        S0, kind reduce_init
//   domain    [M, N, K] -> { S0[m, n, k] : 0 <= m < M and 0 <= n < N and 0 <= k < K }
//   write     { S0[m, n, k] -> C[m, n] }  (restricted to the domain)
//   reads     { S0[m, n, k] -> A[m, k] }, { S0[m, n, k] -> B[k, n] }
//   expr      read(0) * read(1)
// Domain dimensions are the written tensor's indices in order, then the reduction
// indices in order of first appearance on the right-hand side, so lexicographic order
// of the domain is program order within the statement. Tuple names: the statement id
// for domains, the tensor name for arrays. Sizes bound with -D appear as constants.
//
// In a Program built by the front end no isl member is null. Beware when building
// statements by hand: isl/cpp.h throws isl::exception when it copies or assigns a
// null object, so construct relations before storing them in an Access or Statement.
#pragma once

#include <isl/cpp.h>

#include <optional>
#include <string>
#include <vector>

#include "frontend/affine_index.h"
#include "frontend/diagnostics.h"
#include "frontend/element_type.h"
#include "frontend/expr.h"
#include "frontend/reduction_op.h"
#include "frontend/tensor.h"

namespace polyfuse {

// What a statement does with the written element.
// A reduction's operator (Statement::reduction) says how terms combine: `+=!`, `*=!`,
// `max=!`, `min=!` are reduce_init with sum, product, max, min.
enum class StatementKind {
  assign,       // `=`   : C = expr (pointwise, no reduction indices)
  reduce_init,  // `+=!` : C = identity (0 for a sum), then C op= expr over every reduction index
  reduce,       // `+=`  : C op= expr over every reduction index, starting from C's value
};

// The spelling of `kind` ("assign", "reduce_init", "reduce").
std::string_view to_string(StatementKind kind);

struct Statement;
// The assignment operator of `statement` as written ("=", "+=!", "max=", ...).
std::string operator_spelling(const Statement& statement);

// One tensor access of a statement.
struct Access {
  std::string tensor;                // name of the accessed tensor (Program::find_tensor)
  // The index variable of each tensor dimension; the empty string where the subscript
  // is not a plain index (`h + r`: see `subscripts`).
  std::vector<std::string> indices;
  isl::map relation;                 // statement instance -> tensor element
  SourceLocation location;           // the reference in the source
  std::vector<AffineIndex> subscripts;  // the subscript of each dimension, as written
  // The value read outside the tensor (`where I = 0 outside`): such a read may leave the
  // tensor's extent (`relation` is then not inside it). nullopt: every read is inside.
  std::optional<double> outside_value;
  // True for the read of an index tensor inside another read's subscript (a gather: see
  // AffineIndex::gather): its value is a position, not a term of the expression.
  bool is_index = false;

  // True when every subscript is a plain index variable (no sums, constants, strides).
  bool is_plain() const;
};

// One dimension of a statement's iteration domain.
struct IterationIndex {
  std::string name;           // the index variable ("m")
  Size extent;                // its range 0 <= name < extent
  bool is_reduction = false;  // appears on the right-hand side only
};

// One statement instance set with its accesses and computation.
struct Statement {
  std::string id;                       // "S0", "S1", ... in program order
  StatementKind kind = StatementKind::assign;
  ReductionOp reduction = ReductionOp::sum;  // how a reduction combines its terms (sum for assign)
  std::vector<IterationIndex> indices;  // domain dimensions: written indices, then reduction
  isl::set domain;                      // iteration domain, tuple named `id`
  Access write;                         // the written element
  std::vector<Access> reads;            // reads of the expression, left to right
  Expr expr;                            // right-hand side; reads refer into `reads`
  // Type in which the right-hand side is computed and, for reductions, accumulated:
  // f32 for every reduction (f16/bf16 products accumulate in f32), the common type of
  // the tensors read for an assign (f32 when it reads none, or when that type is an integer
  // type: every expression computes in f32).
  ElementType accumulate_type = ElementType::f32;
  SourceLocation location;              // start of the statement in the source

  // Names of the reduction indices, in domain order.
  std::vector<std::string> reduction_indices() const;
  // Names of all domain dimensions, in order.
  std::vector<std::string> index_names() const;
  // True for reduce_init and reduce.
  bool is_reduction() const { return kind != StatementKind::assign; }
  // True for a reduction whose operator is not a sum (`*=!`, `max=!`, `min=!`, ...).
  bool is_non_sum_reduction() const { return is_reduction() && reduction != ReductionOp::sum; }
};

}  // namespace polyfuse
