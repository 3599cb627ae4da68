// C text of the language's expression trees on f32 values, for generated kernels:
// operators as in C, functions as pf::op:: helpers (kernels/cuda/pf_pointwise.cuh),
// literals as float literals.
#pragma once

#include <functional>
#include <string>

#include "frontend/expr.h"

namespace polyfuse {

// `expr` as a C expression; each read node prints as `element(read index)`, each index
// value as `static_cast<float>(index(name))` (the integer variable of index `name`; a
// caller whose kernel has no such variables passes none, and its plan must not give it
// index values). Conditions are C's comparisons and logical operators, `?:` C's.
std::string c_expression(const Expr& expr, const std::function<std::string(int read)>& element,
                         const std::function<std::string(const std::string& name)>& index = {});

}  // namespace polyfuse
