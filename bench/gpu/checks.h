// Correctness checks of a variant's output before it is timed (16-bit patterns as the
// GPU wrote them):
//   against the host reference on sampled elements (host_reference.h), with tolerance
//     2 x reference::tolerance_for(type, K): the library baselines round intermediates
//     (the GEMM result, the bias sum) to the element type that the fused reference
//     keeps in f32, and cuBLASLt's GELU is the tanh approximation;
//   against another variant's whole output (the first that passed), with 4 x the
//     tolerance: each of the two may be off by the above.
// NaN or infinity in an output where the reference is finite fails.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/gpu/conv_shapes.h"
#include "bench/gpu/idioms.h"
#include "bench/gpu/sizes.h"
#include "frontend/element_type.h"
#include "runtime/reference/compare.h"

namespace polyfuse::bench {

// The outcome of one check: ok, or the first failure and how many failed.
struct CheckOutcome {
  bool ok = true;
  std::int64_t compared = 0;   // elements compared
  std::int64_t failures = 0;   // elements out of tolerance
  double max_abs_err = 0;      // over the finite differences
  std::string first_failure;  // "D[0, 3, 5] = 1.5 expected 1.25 (tolerance 0.0039)"

  // "ok (N elements, max abs err E)" or "FAILED: F of N elements, first D[...] ...".
  std::string to_string() const;
};

// "D[m, n]" or "D[b, m, n]" for flat index `index` of D.
std::string output_position(const Idiom& idiom, const ProblemSize& size, std::int64_t index);

// Checks `actual` (all of D) at `indices` against `expected` (one value per index).
CheckOutcome check_against_reference(const Idiom& idiom, DType dtype, const ProblemSize& size,
                                     const std::vector<std::uint16_t>& actual,
                                     const std::vector<std::int64_t>& indices, const std::vector<float>& expected);

// Checks `actual` against `other` (both all of D) element by element.
CheckOutcome check_against_variant(const Idiom& idiom, DType dtype, const ProblemSize& size,
                                   const std::vector<std::uint16_t>& actual, const std::vector<std::uint16_t>& other);

// The name of an output element by flat index ("D[3, 5]", "O[0, 1, 2, 3]").
using Position = std::function<std::string(std::int64_t)>;

// The two checks above for any output: `actual` at `indices` against `expected`, and
// `actual` against `other` element by element, within `tolerance`.
CheckOutcome check_sampled(ElementType type, const reference::Tolerance& tolerance,
                           const std::vector<std::uint16_t>& actual, const std::vector<std::int64_t>& indices,
                           const std::vector<float>& expected, const Position& position);
CheckOutcome check_whole(ElementType type, const reference::Tolerance& tolerance,
                         const std::vector<std::uint16_t>& actual, const std::vector<std::uint16_t>& other,
                         const Position& position);

// A convolution's tolerance: reference::tolerance_for(type, R * S * C) times `factor`.
reference::Tolerance conv_tolerance(const ConvShape& shape, DType dtype, double factor);
// The convolutions' checks (O, N x P x Q x K): against the host reference (conv_reference.h)
// with 2x conv_tolerance, against another variant with 4x.
CheckOutcome check_conv_against_reference(const ConvShape& shape, DType dtype, const std::vector<std::uint16_t>& actual,
                                          const std::vector<std::int64_t>& indices,
                                          const std::vector<float>& expected);
CheckOutcome check_conv_against_variant(const ConvShape& shape, DType dtype, const std::vector<std::uint16_t>& actual,
                                        const std::vector<std::uint16_t>& other);

}  // namespace polyfuse::bench
