// Checking a backend's outputs, and the report every backend prints:
//
//   check: ok (max abs err 9.8e-04, max rel err 4.9e-04)
//   check: FAILED (37 of 4096 elements out of tolerance, first D[3, 5] = 1.5
//                  expected 1.25 tolerance 0.0039; max abs err 0.25, max rel err 0.2)
//
// The check (check_outputs, or compare_outputs with ExactData) compares with the exact
// reference (evaluate_exact.h): the program in real arithmetic, computed in f64, with a
// bound per element derived alongside it (error_bound.h). An element passes when
//   |actual - exact| <= bound;
// "expected" is the exact value and "tolerance" that element's bound. The model, in short:
//  - every rounding a conforming backend may do adds to the bound of the value it rounds:
//    an f32 operation u_f32 |r|, a store to f16/bf16 u_T |x| (+ an absolute floor near
//    zero), a computed matmul factor stored in the operand type (GPU prologues) u_T |x|,
//    a function's implementation its ulps (exp, tanh 2; sigmoid, gelu derived from theirs);
//  - errors of operands propagate exactly in midpoint-radius form: e_x + e_y for + and -,
//    |x| e_y + |y| e_x + e_x e_y for *, the quotient rule for /, the image of
//    [x - e, x + e] for the functions (monotone, or gelu's minimum), max(e_x, e_y) for
//    max/min: so a reduction over products adds sum |b| e_a + |a| e_b over its terms, and
//    chained statements (a matmul of a matmul's ReLU output) compose;
//  - an f32 reduction of n operands (K terms and the initial value) in any order adds
//    gamma(c n u_f32) sum |operands|, deterministic: c = 1 for round-to-nearest additions
//    in any tree (Higham), c = 3 = 2 (b + 2) / b where tensor cores may sum (f16/bf16
//    operands): block additions of b >= 4 products that truncate, plus split-K's extra
//    additions. Truncation is biased, so the probabilistic sqrt(n) law does not hold
//    there; for round-to-nearest it would be a model and gain little (error_bound.h);
//  - the bound is first order only inside two functions' implementation rules (sigmoid,
//    gelu); everything else holds to all orders. The f64 truth's own rounding is in it.
// No margin is added: the bound is a worst case. Correct runs use up to ~90% of it where
// one final f16/bf16 rounding dominates, but only 0.1-1% for f32 outputs of long sums
// (the tests print max_tolerance_used); it still fails an f32 output rounded through f16,
// f32 inputs converted to f16, or a sum missing a single term (tests/reference).
// NaN matches NaN, an infinity only the same infinity; an element whose bound is infinite
// (where a backend may or may not overflow, or divides by a value that may be zero) is
// not judged.
//
// compare_outputs with two TensorData, and compare with a Tolerance, compare two computed
// results with each other (the GPU's and the emulator's, or a library baseline's in
// bench/gpu), with a tolerance from the element type and the reduction length: for an
// expected value e of type T, in a program whose coarsest element type is C (the largest
// unit roundoff u among its tensors), from reductions of K terms, an element passes when
// |actual - e| <= relative * |e| + absolute, with
//   relative = 2 u_T + 2 u_C   (f32 outputs of f32 programs: 2^-18)
//   absolute = u_C sqrt(K) + 8 u_f32 K (+ 2^-24 for f16 outputs, their subnormal spacing)
// assuming inputs like random_values makes (|x| <= 1) and one reduction between inputs and
// outputs; chained reductions (a matmul of a matmul) are outside it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/program.h"
#include "runtime/reference/evaluate_exact.h"
#include "runtime/reference/tensor_data.h"

namespace polyfuse::reference {

// |actual - expected| <= relative * |expected| + absolute.
struct Tolerance {
  double relative = 0;
  double absolute = 0;
};

// The tolerance for outputs of `type` computed from reductions of `reduction_length`
// terms in a program whose coarsest element type is `coarsest` (see the file comment).
Tolerance tolerance_for(ElementType type, std::int64_t reduction_length, ElementType coarsest);
// Same with coarsest = type.
Tolerance tolerance_for(ElementType type, std::int64_t reduction_length);

// The element type of `program` with the largest unit roundoff (bf16 > f16 > f32); FP8 tensors,
// inputs whose values every backend reads exactly, do not count.
ElementType coarsest_type(const Program& program);

// The longest reduction of `program`: the largest product of the reduction extents of
// one statement (R * K for a batch-reduce matmul), 1 when there is none.
std::int64_t reduction_length(const Program& program);

// The outcome of comparing one or more tensors.
struct CheckReport {
  bool ok = true;
  double max_abs_err = 0;    // over every element compared
  double max_rel_err = 0;    // |actual - e| / |e| over elements with |e| > their tolerance
  std::int64_t compared = 0;  // elements compared
  std::int64_t failures = 0;  // elements out of tolerance
  // Compared elements whose value the check cannot judge: NaN in the reference and here (an
  // input outside a function's domain: log or sqrt of a negative number), or with no error
  // bound (an operand's bound reaches outside a function's domain, where the backend may get
  // NaN, or a value may overflow).
  std::int64_t nan_in_both = 0;
  std::int64_t unbounded = 0;
  std::string first_failure;  // "D[3, 5] = 1.5 expected 1.25 tolerance 0.0039", or empty
  // The largest |actual - e| / tolerance over the elements with a finite, nonzero
  // tolerance: how much of the bound the run used (above 1 for a failure).
  double max_tolerance_used = 0;

  // "check: ok (max abs err E, max rel err R)" or "check: FAILED (...)", no newline; when
  // some elements were not judged, their counts too ("; 1024 of 1024 elements not checked:
  // 1024 NaN as in the reference").
  std::string to_string() const;
  std::int64_t unchecked() const { return nan_in_both + unbounded; }
  // Adds `other`'s elements to this report (the first failure stays the first).
  void merge(const CheckReport& other);
};

// Compares `actual` with `expected` element by element within `tolerance`. `name` and
// `shape` only make the first failure readable ("C[3, 5]"); an empty shape prints a flat
// index. Sizes that differ are one failure.
CheckReport compare(std::span<const float> actual, std::span<const float> expected,
                    const Tolerance& tolerance, std::string_view name = "",
                    std::span<const std::int64_t> shape = {});

// Same with tolerance_for(type, reduction_length).
CheckReport compare(std::span<const float> actual, std::span<const float> expected,
                    ElementType type, std::int64_t reduction_length,
                    std::string_view name = "", std::span<const std::int64_t> shape = {});

// Compares `actual` with the exact values of `exact`, element i within exact[i].bound.
// `name` and `shape` as for the other compare.
CheckReport compare(std::span<const float> actual, const ExactTensor& exact, std::string_view name = "",
                    std::span<const std::int64_t> shape = {});

// Compares every output of `program` in `actual` with the exact reference `exact`
// (evaluate_exact on the same inputs). This is the check every backend reports.
CheckReport compare_outputs(const Program& program, const TensorData& actual, const ExactData& exact);

// evaluate_exact(program, inputs), then compare_outputs with `actual` (the outputs a
// backend computed from `inputs`); `f32` and `fp8` as evaluate_exact's.
CheckReport check_outputs(const Program& program, const TensorData& inputs, const TensorData& actual,
                          F32Matmul f32 = F32Matmul::f32, Fp8Accumulation fp8 = Fp8Accumulation::f32);

// Compares every output of `program` in `actual` with `expected`, two computed results
// (e.g. a GPU's and the emulator's), with the tolerance for the output's type,
// K = reduction_length(program) and coarsest_type(program) (file comment).
CheckReport compare_outputs(const Program& program, const TensorData& actual,
                            const TensorData& expected);

}  // namespace polyfuse::reference
