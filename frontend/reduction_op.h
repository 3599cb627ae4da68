// The operator of a reduction statement, as Tensor Comprehensions writes it:
//   +=!  +=     sum      (starts from 0 with '!', else from the element's value)
//   *=!  *=     product  (from 1)
//   max=! max=  maximum  (from -infinity)
//   min=! min=  minimum  (from +infinity)
// The same operator also gives a reduction with no reduction index its meaning:
// `C(m) max= A(m)` is C(m) = max(C(m), A(m)).
#pragma once

#include <string_view>

namespace polyfuse {

// How the terms of a reduction are combined.
enum class ReductionOp { sum, product, max, min };

// The operator's name in the IR ("sum", "product", "max", "min").
std::string_view to_string(ReductionOp op);

// What the operator is written with before "=" / "=!" ("+", "*", "max", "min").
std::string_view operator_prefix(ReductionOp op);

// The value a `!` reduction starts from: 0, 1, -infinity, +infinity.
double identity_value(ReductionOp op);

}  // namespace polyfuse
