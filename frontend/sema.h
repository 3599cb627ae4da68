// Semantic analysis: checks one parsed def and turns it into a Program, building the
// isl objects of each tensor and statement as soon as it is checked (polyhedral_model.h),
// so that no isl member is ever null (isl/cpp.h refuses to copy null objects).
//
// Rules checked (each violation is a located error; all are collected):
// - tensor names are unique and are not built-in function names; a def has outputs;
// - a tensor reference uses plain index variables, each at most once, as many as the
//   tensor has dimensions; constant and affine indices are "not supported yet";
// - an index ranges over the size of every dimension it indexes; two different sizes
//   for one index in one statement is an error naming both uses;
// - indices only on the right-hand side are reduction indices; `=` must have none;
// - inputs are never written; outputs are written at least once;
// - a tensor that is written but not declared is a temporary: its shape comes from the
//   ranges of the indices of its first write, which must be `=` or `+=!`; reading a
//   temporary before that write is an error;
// - names used as functions must be built-in functions with the right arity;
// - a written tensor's index must not have the name of a size (the two would clash in isl);
//   in a read's subscript a bound size is its value (an unbound one is an error), and a
//   tensor's name is an error;
// - a tensor with no dimensions (a scalar parameter, `float alpha`) is read by its name alone;
// - an index that only sums give a range to takes the values that keep every such sum inside
//   its tensor (their intersection, TC's rule; an empty one is an error naming two of them).
#pragma once

#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "frontend/isl_context.h"
#include "frontend/program.h"
#include "frontend/size_bindings.h"

namespace polyfuse {

// Checks `def` and builds its Program in `context`. Errors go to `sink`; when
// sink.has_errors() afterwards, the Program lacks the statements that had errors and
// must not be used. isl failures (bugs) throw isl::exception.
Program analyze_def(const ast::Def& def, const SizeBindings& sizes, const IslContextHandle& context,
                    DiagnosticSink& sink);

}  // namespace polyfuse
