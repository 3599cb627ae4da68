#include "bench/gpu/checks.h"

#include <fmt/format.h>

#include <cmath>

#include "bench/gpu/conv_reference.h"
#include "bench/gpu/host_reference.h"
#include "runtime/reference/compare.h"
#include "runtime/reference/element_rounding.h"

namespace polyfuse::bench {
namespace {

// The reduction length the tolerance is derived from: K, or 2K for two matmuls summed or
// multiplied.
std::int64_t reduction_terms(const Idiom& idiom, const ProblemSize& size) {
  return idiom.second_matmul || idiom.gated ? 2 * size.k : size.k;
}

// Compares one element; records a failure in `outcome`.
void compare_element(CheckOutcome& outcome, float actual, float expected, const reference::Tolerance& tolerance,
                     const std::string& position) {
  ++outcome.compared;
  const double error = std::fabs(static_cast<double>(actual) - expected);
  const bool finite = std::isfinite(actual) || !std::isfinite(expected);
  const double allowed = tolerance.relative * std::fabs(expected) + tolerance.absolute;
  if (std::isfinite(error) && error > outcome.max_abs_err) outcome.max_abs_err = error;
  if (finite && error <= allowed) return;
  if (!std::isfinite(expected) && actual == expected) return;
  outcome.ok = false;
  if (outcome.failures++ == 0)
    outcome.first_failure = fmt::format("{} = {} expected {} (tolerance {:.3g})", position, actual, expected, allowed);
}

// The tolerance of D's elements. Elementwise idioms: reference::tolerance_for over the
// matmul's terms. Row idioms: the error δ of C (tolerance_for's absolute bound, which covers
// a baseline that stores C in the element type) moves a softmax output by a relative 4δ (δ in
// C and in the row max; twice through the sum), and a layer norm's by about 3δ / sigma(C), 9
// units of roundoff absolute (sigma(C) = sqrt(K / 9) for the uniform [-1, 1) inputs): 12 allowed.
reference::Tolerance row_tolerance(const Idiom& idiom, DType dtype, const ProblemSize& size) {
  const ElementType type = element_type(dtype);
  const double u = reference::unit_roundoff(type);
  const double delta = reference::tolerance_for(type, size.k).absolute;
  reference::Tolerance tolerance;
  if (idiom.row == RowOp::softmax) {
    tolerance.relative = 2 * u + 4 * delta;
    tolerance.absolute = std::ldexp(1.0, -24);  // f16's smallest subnormal; flushed tails
  } else {
    tolerance.relative = 4 * u;
    tolerance.absolute = 12 * u;
  }
  return tolerance;
}

reference::Tolerance scaled(const Idiom& idiom, DType dtype, const ProblemSize& size, double factor) {
  reference::Tolerance tolerance = idiom.row != RowOp::none
                                       ? row_tolerance(idiom, dtype, size)
                                       : reference::tolerance_for(element_type(dtype), reduction_terms(idiom, size));
  tolerance.relative *= factor;
  tolerance.absolute *= factor;
  return tolerance;
}

}  // namespace

std::string CheckOutcome::to_string() const {
  if (ok) return fmt::format("ok ({} elements, max abs err {:.3g})", compared, max_abs_err);
  return fmt::format("FAILED: {} of {} elements, first {}", failures, compared, first_failure);
}

std::string output_position(const Idiom& idiom, const ProblemSize& size, std::int64_t index) {
  const std::int64_t n = index % size.n;
  const std::int64_t m = (index / size.n) % size.m;
  if (idiom.batched) return fmt::format("D[{}, {}, {}]", index / (size.n * size.m), m, n);
  return fmt::format("D[{}, {}]", m, n);
}

CheckOutcome check_sampled(ElementType type, const reference::Tolerance& tolerance,
                           const std::vector<std::uint16_t>& actual, const std::vector<std::int64_t>& indices,
                           const std::vector<float>& expected, const Position& position) {
  CheckOutcome outcome;
  for (size_t i = 0; i < indices.size(); ++i) {
    const std::int64_t index = indices[i];
    if (index < 0 || static_cast<size_t>(index) >= actual.size()) {
      outcome.ok = false;
      if (outcome.failures++ == 0) outcome.first_failure = fmt::format("index {} outside the output", index);
      continue;
    }
    compare_element(outcome, reference::from_bits(type, actual[static_cast<size_t>(index)]), expected[i], tolerance,
                    position(index));
  }
  return outcome;
}

CheckOutcome check_whole(ElementType type, const reference::Tolerance& tolerance,
                         const std::vector<std::uint16_t>& actual, const std::vector<std::uint16_t>& other,
                         const Position& position) {
  CheckOutcome outcome;
  if (actual.size() != other.size()) {
    outcome.ok = false;
    outcome.failures = 1;
    outcome.first_failure = fmt::format("{} elements, the other variant has {}", actual.size(), other.size());
    return outcome;
  }
  for (size_t i = 0; i < actual.size(); ++i) {
    if (actual[i] == other[i]) {
      ++outcome.compared;
      continue;
    }
    compare_element(outcome, reference::from_bits(type, actual[i]), reference::from_bits(type, other[i]), tolerance,
                    position(static_cast<std::int64_t>(i)));
  }
  return outcome;
}

CheckOutcome check_against_reference(const Idiom& idiom, DType dtype, const ProblemSize& size,
                                     const std::vector<std::uint16_t>& actual,
                                     const std::vector<std::int64_t>& indices, const std::vector<float>& expected) {
  return check_sampled(element_type(dtype), scaled(idiom, dtype, size, 2.0), actual, indices, expected,
                       [&](std::int64_t index) { return output_position(idiom, size, index); });
}

CheckOutcome check_against_variant(const Idiom& idiom, DType dtype, const ProblemSize& size,
                                   const std::vector<std::uint16_t>& actual, const std::vector<std::uint16_t>& other) {
  return check_whole(element_type(dtype), scaled(idiom, dtype, size, 4.0), actual, other,
                     [&](std::int64_t index) { return output_position(idiom, size, index); });
}

reference::Tolerance conv_tolerance(const ConvShape& shape, DType dtype, double factor) {
  reference::Tolerance tolerance =
      reference::tolerance_for(element_type(dtype), shape.r * shape.r * shape.c / shape.groups);
  tolerance.relative *= factor;
  tolerance.absolute *= factor;
  return tolerance;
}

CheckOutcome check_conv_against_reference(const ConvShape& shape, DType dtype, const std::vector<std::uint16_t>& actual,
                                          const std::vector<std::int64_t>& indices,
                                          const std::vector<float>& expected) {
  return check_sampled(element_type(dtype), conv_tolerance(shape, dtype, 2.0), actual, indices, expected,
                       [&](std::int64_t index) { return conv_output_position(shape, index); });
}

CheckOutcome check_conv_against_variant(const ConvShape& shape, DType dtype, const std::vector<std::uint16_t>& actual,
                                        const std::vector<std::uint16_t>& other) {
  return check_whole(element_type(dtype), conv_tolerance(shape, dtype, 4.0), actual, other,
                     [&](std::int64_t index) { return conv_output_position(shape, index); });
}

}  // namespace polyfuse::bench
