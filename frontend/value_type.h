// The type of an expression's value as Tensor Comprehensions infers it (C's usual
// arithmetic conversions): integer tensors, integer literals, sizes and index values are
// integers; a sum, difference or product of integers is an integer; anything with a float
// in it is f32. polyfuse computes every expression in f32 whatever this says (exact for
// integers up to 2^24); the type decides what an output declared by name alone holds.
#pragma once

#include <vector>

#include "frontend/element_type.h"
#include "frontend/expr.h"
#include "frontend/program.h"

namespace polyfuse {

// The type of `expr`'s value: a tensor read's type (reads index into `reads`), i32 for
// integer literals, sizes, index values and conditions, a conversion's type, the common type
// (element_type.h) of a binary operation's, `max`'s, `min`'s or `?:`'s values, f32 for a
// division, a float literal and the other functions.
ElementType value_type(const Expr& expr, const Program& program, const std::vector<Access>& reads);

}  // namespace polyfuse
