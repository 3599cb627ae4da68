#include "runtime/reference/reduction_bound.h"

#include <algorithm>
#include <cmath>

namespace polyfuse::reference {

ReductionBound::ReductionBound(ReductionOp op, Bounded initial, double factor)
    : op_(op), sum_(op == ReductionOp::sum ? initial : Bounded{}, factor) {
  if (op_ == ReductionOp::sum) return;
  value_ = initial.value;
  bound_ = initial.bound;
  winner_bound_ = initial.bound;
  reach_ = op == ReductionOp::min ? initial.value - initial.bound : initial.value + initial.bound;
  magnitude_ = std::fabs(initial.value) + initial.bound;
  exact_magnitude_ = std::fabs(initial.value);
  grown_ = std::max(1.0, magnitude_);
  operands_ = 1;
  all_exact_ = initial.bound == 0;
}

void ReductionBound::add(Bounded term) {
  switch (op_) {
    case ReductionOp::sum: sum_.add(term); return;
    case ReductionOp::max:
    case ReductionOp::min: {
      const bool max = op_ == ReductionOp::max;
      if (term.value == value_) winner_bound_ = std::max(winner_bound_, term.bound);
      else if (max ? term.value > value_ : term.value < value_) winner_bound_ = term.bound;
      value_ = max ? std::max(value_, term.value) : std::min(value_, term.value);
      reach_ = max ? std::max(reach_, term.value + term.bound) : std::min(reach_, term.value - term.bound);
      break;
    }
    case ReductionOp::product: {
      value_ *= term.value;
      const double magnitude = std::fabs(term.value) + term.bound;
      magnitude_ *= magnitude;
      exact_magnitude_ *= std::fabs(term.value);
      grown_ *= std::max(1.0, magnitude);
      break;
    }
  }
  if (std::isnan(term.value)) value_ = term.value;  // keep a NaN (std::max may drop it)
  bound_ = std::max(bound_, term.bound);
  all_exact_ = all_exact_ && term.bound == 0;
  ++operands_;
}

Bounded ReductionBound::finish() const {
  if (op_ == ReductionOp::sum) return sum_.finish();
  // fmaxf and fminf drop a NaN operand, std::max may keep it: no claim.
  if (std::isnan(value_) && op_ != ReductionOp::product) return {value_, kInfinity};
  if (!std::isfinite(value_) || !std::isfinite(bound_)) return {value_, all_exact_ ? 0 : kInfinity};
  if (op_ != ReductionOp::product) {
    // max, min: the winner's e, or how far another operand reaches past the extreme (rounded
    // up by an ulp of the reach), within the largest e_i
    const double past = std::fabs(reach_ - value_) + 0x1p-52 * std::fabs(reach_);
    return {value_, std::min(bound_, std::max(winner_bound_, past))};
  }
  if (!std::isfinite(magnitude_)) return {value_, kInfinity};
  const double n = static_cast<double>(operands_);
  const double t = (n - 1) * kUnitRoundoffF32;
  if (t >= 1) return {value_, kInfinity};
  const double rounding = t / (1 - t) * magnitude_;
  if (magnitude_ + rounding >= overflow_threshold(ElementType::f32)) return {value_, kInfinity};
  return {value_, (magnitude_ - exact_magnitude_) + rounding + n * kUnitRoundoffF64 * magnitude_ +
                      n * kAbsoluteFloorF32 * grown_};
}

}  // namespace polyfuse::reference
