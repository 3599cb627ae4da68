#include "runtime/reference/condition_bound.h"

#include <algorithm>
#include <cmath>

namespace polyfuse::reference {
namespace {

constexpr Bounded kTrue{1, 0};
constexpr Bounded kFalse{0, 0};

bool certain(Bounded condition) { return condition.bound == 0; }
Bounded condition(bool value, bool is_certain) { return {value ? 1.0 : 0.0, is_certain ? 0.0 : 1.0}; }

}  // namespace

Bounded compare(Comparison comparison, Bounded x, Bounded y) {
  const bool exact = polyfuse::compare(comparison, x.value, y.value);
  if (std::isnan(x.value) || std::isnan(y.value)) return condition(exact, true);
  // d = x - y: a backend's difference lies in [d - e, d + e].
  const double d = x.value - y.value;
  const double e = x.bound + y.bound;
  bool is_certain = false;
  switch (comparison) {
    case Comparison::lt:
    case Comparison::ge: is_certain = d + e < 0 || d - e >= 0; break;   // x < y everywhere, or nowhere
    case Comparison::gt:
    case Comparison::le: is_certain = d - e > 0 || d + e <= 0; break;   // x > y everywhere, or nowhere
    case Comparison::eq:
    case Comparison::ne: is_certain = e == 0 || std::fabs(d) > e; break;  // exact operands, or never equal
  }
  return condition(exact, is_certain);
}

Bounded logical(ExprKind kind, Bounded x, Bounded y) {
  if (kind == ExprKind::logical_not) return condition(x.value == 0, certain(x));
  const bool is_and = kind == ExprKind::logical_and;
  // The operand value that decides alone: false for &&, true for ||.
  const double decisive = is_and ? 0 : 1;
  if ((x.value == decisive && certain(x)) || (y.value == decisive && certain(y))) return is_and ? kFalse : kTrue;
  const bool exact = is_and ? (x.value != 0 && y.value != 0) : (x.value != 0 || y.value != 0);
  return condition(exact, certain(x) && certain(y));
}

Bounded select(Bounded condition, Bounded if_true, Bounded if_false) {
  const Bounded& chosen = condition.value != 0 ? if_true : if_false;
  const Bounded& other = condition.value != 0 ? if_false : if_true;
  if (certain(condition)) return chosen;
  return {chosen.value, std::max(chosen.bound, std::fabs(chosen.value - other.value) + other.bound)};
}

}  // namespace polyfuse::reference
