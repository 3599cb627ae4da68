// The exact reference's accumulator for a reduction by any operator (ReductionOp): the
// exact result in f64 and a bound on how far a conforming backend's f32 result may be,
// in any order of the terms (error_bound.h has the notation).
//   sum       Reduction (error_bound.h)
//   max, min  the extreme operand o_w; max and min are exact and monotone in every operand,
//             so the result lies in [max_i (o_i - e_i), max_i (o_i + e_i)] (min alike), whose
//             lower end is within e_w of o_w: the bound is max(e_w, max_i (o_i + e_i) - o_w)
//             (that difference rounded up), at most max e_i, and only operands that can reach
//             the extreme count (a causal mask's -1e30, off by its f32 rounding, about 2^76,
//             does not widen a row maximum it never reaches)
//   product   P = prod o_i over the n operands (the initial value, then the terms); with
//             A = prod (|o_i| + e_i):
//               e = (A - prod |o_i|) + gamma((n - 1) u_f32) A + n u64 A + n nu_f32 A1,
//             A - prod |o_i| bounding the propagated errors (any perturbation within the
//             e_i), gamma the n - 1 multiplications' roundings in any order, and
//             A1 = prod max(1, |o_i| + e_i) what an absolute error nu_f32 of one rounding
//             near zero can grow to; no claim where A (1 + gamma) may overflow f32
// A non-finite operand gives an exact result when every operand is exact, else no claim;
// a NaN maximum or minimum makes no claim (fmaxf drops NaN operands, std::max need not).
#pragma once

#include <cstdint>

#include "frontend/reduction_op.h"
#include "runtime/reference/error_bound.h"

namespace polyfuse::reference {

class ReductionBound {
 public:
  // Starts from `initial` (the identity for `op=!`, the element for `op=`); `factor` is
  // the summation factor of sums (error_bound.h).
  ReductionBound(ReductionOp op, Bounded initial, double factor);
  // Combines one term.
  void add(Bounded term);
  // The result as any order gives it in f32 (no rounding to a tensor type yet).
  Bounded finish() const;

 private:
  ReductionOp op_;
  Reduction sum_;
  double value_ = 0;         // max, min, product: the result so far
  double bound_ = 0;         // max, min: the largest e_i
  double winner_bound_ = 0;  // max, min: the largest e_i of the operands equal to value_
  double reach_ = 0;         // max: the largest o_i + e_i; min: the smallest o_i - e_i
  double magnitude_ = 1;     // product: A
  double exact_magnitude_ = 1;  // product: prod |o_i|
  double grown_ = 1;         // product: A1
  std::int64_t operands_ = 0;
  bool all_exact_ = true;    // every operand had bound 0
};

}  // namespace polyfuse::reference
