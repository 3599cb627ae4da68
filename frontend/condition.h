// Conditions: comparisons of values and their logical combinations, the first operand of
// the conditional operator `c ? x : y` (Tensor Comprehensions' syntax and precedence).
//
// A condition is not a value: it is true or false, and only `?:`, `&&`, `||` and `!`
// take it (TC's semantic check asks for a bool there too). Using a condition as a number
// (`(i < j) * X(i)`) or a number as a condition (`X(i) ? a : b`) is an error, never an
// implicit 0/1 conversion.
#pragma once

#include <string_view>

namespace polyfuse {

// The comparison operators, on f32 values (IEEE: every comparison with a NaN is false,
// except `!=`).
enum class Comparison { lt, le, gt, ge, eq, ne };

// The operator as written ("<", "<=", ">", ">=", "==", "!=").
std::string_view to_string(Comparison comparison);

// `comparison` applied to x and y (as C compares two floats or doubles).
template <typename T>
bool compare(Comparison comparison, T x, T y) {
  switch (comparison) {
    case Comparison::lt: return x < y;
    case Comparison::le: return x <= y;
    case Comparison::gt: return x > y;
    case Comparison::ge: return x >= y;
    case Comparison::eq: return x == y;
    case Comparison::ne: return x != y;
  }
  return false;
}

}  // namespace polyfuse
