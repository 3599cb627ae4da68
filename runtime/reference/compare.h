// Comparing a backend's outputs with the reference evaluator's, with a tolerance derived
// from the element type and the reduction length, and the report every backend prints:
//
//   check: ok (max abs err 9.8e-04, max rel err 4.9e-04)
//   check: FAILED (37 of 4096 elements of D out of tolerance, first D[3, 5] = 1.5
//                  expected 1.25 tolerance 0.0039; max abs err 0.25, max rel err 0.2)
//
// The tolerance (tolerance_for) assumes inputs like random_values makes: |x| <= 1, so
// every product in a sum has magnitude <= 1. For an expected value e of type T, in a
// program whose coarsest element type is C (the largest unit roundoff u among its
// tensors; u_f16 = 2^-11, u_bf16 = 2^-8, u_f32 = 2^-24), from reductions of K terms, an
// element passes when |actual - e| <= relative * |e| + absolute, with
//   relative = 2 u_T + 2 u_C   (f32 outputs of f32 programs: 2^-18)
//     the final rounding to T may land one ulp (<= 2 u_T |e|) away, and one intermediate
//     value stored in C (a temporary, a prologue's result, another output read back) one
//     ulp of C; for f32, vectorised exp/tanh/erf may differ from libm by a few dozen ulps.
//   absolute = u_C sqrt(K) + 8 u_f32 K (+ 2^-24 for f16 outputs, their subnormal spacing)
//     factors rounded to C (as the GPU path stores prologue results) perturb each product
//     by <= u_C with random signs: u_C sqrt(K); an f32 sum of K random-sign terms of
//     magnitude <= 1 has partial sums of about sqrt(K), so each of its K roundings errs
//     by <= u_f32 sqrt(K) with random signs: about u_f32 K per summation order; two
//     orders (blocking, split-K, FMA) and a 3-sigma margin give 8 u_f32 K.
// K is the longest reduction of the program (reduction_length); 1 for pointwise code.
// NaN matches NaN, an infinity only the same infinity.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/program.h"
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

// The element type of `program` with the largest unit roundoff (bf16 > f16 > f32).
ElementType coarsest_type(const Program& program);

// The longest reduction of `program`: the largest product of the reduction extents of
// one statement (R * K for a batch-reduce matmul), 1 when there is none.
std::int64_t reduction_length(const Program& program);

// The outcome of comparing one or more tensors.
struct CheckReport {
  bool ok = true;
  double max_abs_err = 0;    // over every element compared
  double max_rel_err = 0;    // |actual - e| / |e| over elements with |e| > absolute tolerance
  std::int64_t compared = 0;  // elements compared
  std::int64_t failures = 0;  // elements out of tolerance
  std::string first_failure;  // "D[3, 5] = 1.5 expected 1.25 tolerance 0.0039", or empty

  // "check: ok (max abs err E, max rel err R)" or "check: FAILED (...)", no newline.
  std::string to_string() const;
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

// Compares every output of `program` in `actual` with `expected` (both hold every
// output, e.g. from a backend run and from evaluate), with the tolerance for the
// output's type, K = reduction_length(program) and coarsest_type(program).
CheckReport compare_outputs(const Program& program, const TensorData& actual,
                            const TensorData& expected);

}  // namespace polyfuse::reference
