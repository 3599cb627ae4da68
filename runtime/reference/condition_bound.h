// Conditions with error bounds: comparisons, `&&`, `||`, `!` and `?:` in the arithmetic of
// evaluate_exact.h (error_bound.h's Bounded values).
//
// A condition is held as a Bounded {value, bound}: value 1 (true) or 0 (false) as the
// exact values decide it, bound 0 when every conforming backend decides the same, 1 when
// some backend may decide the other way (its operands' bounds overlap: x < y with
// |x - y| <= e_x + e_y). `?:` then takes the branch the exact values choose and, when the
// condition is uncertain, a bound that also covers the other branch's backend value:
// max(e_chosen, |chosen - other| + e_other). A backend that decides differently from the
// reference thus never fails the check, and one that computes a wrong branch value does.
#pragma once

#include "frontend/condition.h"
#include "frontend/expr.h"
#include "runtime/reference/error_bound.h"

namespace polyfuse::reference {

// x comparison y: certain when the intervals [x - e_x, x + e_x] and [y - e_y, y + e_y]
// decide it alike at every point (a NaN operand: exact; IEEE's false, or true for !=).
Bounded compare(Comparison comparison, Bounded x, Bounded y);

// x && y, x || y (kind logical_and, logical_or) or !x (logical_not, y ignored) on
// conditions: certain when the certain operands decide it (false && anything).
Bounded logical(ExprKind kind, Bounded x, Bounded y);

// condition ? if_true : if_false, as described above.
Bounded select(Bounded condition, Bounded if_true, Bounded if_false);

}  // namespace polyfuse::reference
