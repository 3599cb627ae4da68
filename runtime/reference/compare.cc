#include "runtime/reference/compare.h"

#include <cmath>
#include <cstdio>

#include "runtime/reference/element_rounding.h"

namespace polyfuse::reference {
namespace {

std::string format_value(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

std::string format_error(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1e", value);
  return text;
}

// "C[3, 5]" for flat index `flat` of a tensor of `shape`; "C[flat]" without a shape.
std::string element_name(std::string_view name, std::span<const std::int64_t> shape,
                         std::int64_t flat) {
  std::string text = std::string(name.empty() ? "element" : name) + "[";
  if (shape.empty()) return text + std::to_string(flat) + "]";
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t dim = shape.size(); dim-- > 0;) {
    index[dim] = shape[dim] > 0 ? flat % shape[dim] : 0;
    flat = shape[dim] > 0 ? flat / shape[dim] : 0;
  }
  for (std::size_t dim = 0; dim < index.size(); ++dim)
    text += (dim ? ", " : "") + std::to_string(index[dim]);
  return text + "]";
}

// Which element is checked, for the first failure's message.
struct ElementPlace {
  std::string_view tensor;
  std::span<const std::int64_t> shape;
  std::size_t index;
};

// Checks one element: `actual` against `expected` within `allowed` (infinite: not
// judged); the relative error counts where |expected| > `relative_floor`.
void check_element(CheckReport& report, double actual, double expected, double allowed, double relative_floor,
                   const ElementPlace& place) {
  ++report.compared;
  if (std::isinf(allowed) && std::isfinite(expected)) {
    ++report.unbounded;
    return;
  }
  bool pass;
  double error = 0;
  if (std::isnan(expected) || std::isnan(actual)) {
    pass = std::isnan(expected) && std::isnan(actual);
    error = pass ? 0 : INFINITY;
    if (pass) ++report.nan_in_both;
  } else if (std::isinf(expected) || std::isinf(actual)) {
    pass = actual == expected;
    error = pass ? 0 : INFINITY;
  } else {
    error = std::fabs(actual - expected);
    pass = error <= allowed;
    if (std::fabs(expected) > relative_floor)
      report.max_rel_err = std::max(report.max_rel_err, error / std::fabs(expected));
    if (allowed > 0) report.max_tolerance_used = std::max(report.max_tolerance_used, error / allowed);
  }
  report.max_abs_err = std::max(report.max_abs_err, error);
  if (pass) return;
  if (report.failures == 0)
    report.first_failure = element_name(place.tensor, place.shape, static_cast<std::int64_t>(place.index)) +
                           " = " + format_value(actual) + " expected " + format_value(expected) + " tolerance " +
                           format_value(allowed);
  ++report.failures;
  report.ok = false;
}

CheckReport size_mismatch(std::string_view name, std::size_t actual, std::size_t expected) {
  CheckReport report;
  report.ok = false;
  report.failures = 1;
  report.first_failure =
      std::string(name) + " has " + std::to_string(actual) + " elements, expected " + std::to_string(expected);
  return report;
}

// Merges compare_tensor(tensor, actual, expected) over the outputs of `program`; an
// output missing from either side is one failure.
template <typename Expected, typename CompareTensor>
CheckReport compare_each_output(const Program& program, const TensorData& actual,
                                const std::map<std::string, Expected>& expected, CompareTensor compare_tensor) {
  CheckReport report;
  for (const Tensor& tensor : program.tensors) {
    if (tensor.role != TensorRole::output) continue;
    const auto got = actual.find(tensor.name);
    const auto want = expected.find(tensor.name);
    if (got == actual.end() || want == expected.end()) {
      CheckReport missing;
      missing.ok = false;
      missing.failures = 1;
      missing.first_failure = "output " + tensor.name + " missing";
      report.merge(missing);
      continue;
    }
    report.merge(compare_tensor(tensor, got->second, want->second));
  }
  return report;
}

}  // namespace

Tolerance tolerance_for(ElementType type, std::int64_t reduction_length, ElementType coarsest) {
  const double k = static_cast<double>(std::max<std::int64_t>(1, reduction_length));
  const double u = unit_roundoff(type);
  const double uc = std::max(u, unit_roundoff(coarsest));
  const double u32 = unit_roundoff(ElementType::f32);
  Tolerance tolerance;
  tolerance.relative = uc == u32 ? std::ldexp(1.0, -18) : 2 * u + 2 * uc;
  tolerance.absolute = uc * std::sqrt(k) + 8 * u32 * k;
  if (type == ElementType::f16) tolerance.absolute += std::ldexp(1.0, -24);
  return tolerance;
}

Tolerance tolerance_for(ElementType type, std::int64_t reduction_length) {
  return tolerance_for(type, reduction_length, type);
}

ElementType coarsest_type(const Program& program) {
  ElementType coarsest = ElementType::f32;
  for (const Tensor& tensor : program.tensors)  // FP8 tensors are inputs, exact in every backend
    if (!is_fp8(tensor.type) && unit_roundoff(tensor.type) > unit_roundoff(coarsest)) coarsest = tensor.type;
  return coarsest;
}

std::int64_t reduction_length(const Program& program) {
  std::int64_t longest = 1;
  for (const Statement& statement : program.statements) {
    std::int64_t length = 1;
    for (const IterationIndex& index : statement.indices)
      if (index.is_reduction) length *= bound_extent(program, index.extent);
    longest = std::max(longest, length);
  }
  return longest;
}

std::string CheckReport::to_string() const {
  std::string errors = "max abs err " + format_error(max_abs_err) + ", max rel err " + format_error(max_rel_err);
  if (unchecked() > 0) {
    errors += "; " + std::to_string(unchecked()) + " of " + std::to_string(compared) + " elements not checked: ";
    if (nan_in_both > 0) errors += std::to_string(nan_in_both) + " NaN as in the reference";
    if (nan_in_both > 0 && unbounded > 0) errors += ", ";
    if (unbounded > 0)
      errors += std::to_string(unbounded) + " without an error bound (a value may leave a function's domain or overflow)";
  }
  if (ok) return "check: ok (" + errors + ")";
  return "check: FAILED (" + std::to_string(failures) + " of " + std::to_string(compared) +
         " elements out of tolerance, first " + first_failure + "; " + errors + ")";
}

void CheckReport::merge(const CheckReport& other) {
  if (first_failure.empty()) first_failure = other.first_failure;
  ok = ok && other.ok;
  max_abs_err = std::max(max_abs_err, other.max_abs_err);
  max_rel_err = std::max(max_rel_err, other.max_rel_err);
  max_tolerance_used = std::max(max_tolerance_used, other.max_tolerance_used);
  compared += other.compared;
  failures += other.failures;
  nan_in_both += other.nan_in_both;
  unbounded += other.unbounded;
}

CheckReport compare(std::span<const float> actual, std::span<const float> expected,
                    ElementType type, std::int64_t reduction_length, std::string_view name,
                    std::span<const std::int64_t> shape) {
  return compare(actual, expected, tolerance_for(type, reduction_length), name, shape);
}

CheckReport compare(std::span<const float> actual, std::span<const float> expected,
                    const Tolerance& tolerance, std::string_view name,
                    std::span<const std::int64_t> shape) {
  if (actual.size() != expected.size()) return size_mismatch(name, actual.size(), expected.size());
  CheckReport report;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const double allowed = tolerance.relative * std::fabs(expected[i]) + tolerance.absolute;
    check_element(report, actual[i], expected[i], allowed, tolerance.absolute, {name, shape, i});
  }
  return report;
}

CheckReport compare(std::span<const float> actual, const ExactTensor& exact, std::string_view name,
                    std::span<const std::int64_t> shape) {
  if (actual.size() != exact.size()) return size_mismatch(name, actual.size(), exact.size());
  CheckReport report;
  for (std::size_t i = 0; i < actual.size(); ++i)
    check_element(report, actual[i], exact[i].value, exact[i].bound, exact[i].bound, {name, shape, i});
  return report;
}

CheckReport compare_outputs(const Program& program, const TensorData& actual, const ExactData& exact) {
  return compare_each_output(program, actual, exact, [&](const Tensor& tensor, const std::vector<float>& got,
                                                         const ExactTensor& want) {
    return compare(got, want, tensor.name, bound_shape(program, tensor));
  });
}

CheckReport check_outputs(const Program& program, const TensorData& inputs, const TensorData& actual, F32Matmul f32,
                          Fp8Accumulation fp8) {
  return compare_outputs(program, actual, evaluate_exact(program, inputs, f32, fp8));
}

CheckReport compare_outputs(const Program& program, const TensorData& actual,
                            const TensorData& expected) {
  const std::int64_t length = reduction_length(program);
  const ElementType coarsest = coarsest_type(program);
  return compare_each_output(program, actual, expected, [&](const Tensor& tensor, const std::vector<float>& got,
                                                            const std::vector<float>& want) {
    return compare(got, want, tolerance_for(tensor.type, length, coarsest), tensor.name, bound_shape(program, tensor));
  });
}

}  // namespace polyfuse::reference
