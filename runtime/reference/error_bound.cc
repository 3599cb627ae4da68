#include "runtime/reference/error_bound.h"

#include <algorithm>
#include <limits>

#include "runtime/reference/element_rounding.h"

namespace polyfuse::reference {
namespace {

constexpr double u32 = kUnitRoundoffF32;
constexpr double u64 = kUnitRoundoffF64;
constexpr double nu32 = kAbsoluteFloorF32;
// Where gelu_erf has its minimum: Phi(x) + x phi(x) = 0.
constexpr double kGeluArgmin = -0.7517915246935646;
// Where gelu_tanh has its minimum (its derivative's root, to 30 digits with mpmath).
constexpr double kGeluTanhArgmin = -0.7524614220710163;
// Where silu has its minimum: x = -(1 + W(1/e)).
constexpr double kSiluArgmin = -1.2784645427610738;
// Below -88 (a little above -ln(FLT_MAX) = -88.72), expf(-x) may overflow in f32.
constexpr double kExpOverflowArgument = 88;
// sqrt(2 / pi) and the cubic coefficient of gelu_tanh.
const double kGeluTanhScale = std::sqrt(2 / 3.14159265358979323846);
constexpr double kGeluTanhCubic = 0.044715;

// nu_T: the absolute part of one rounding to `type` (see the file comment of the header).
double absolute_floor(ElementType type) {
  switch (type) {
    case ElementType::f16: return std::ldexp(1.0, -24);
    case ElementType::e4m3: return std::ldexp(1.0, -10);  // half of e4m3's smallest subnormal 2^-9
    case ElementType::e5m2: return std::ldexp(1.0, -17);  // half of e5m2's smallest subnormal 2^-16
    default: return nu32;
  }
}


// a * b for magnitudes, with 0 * inf = 0 (an exact operand adds no error however large
// the other one is).
double times(double a, double b) { return a == 0 || b == 0 ? 0 : a * b; }

// `x` as a value of `type`: an infinity when all of x +- e rounds to one, no claim when
// part of it does.
Bounded overflow_checked(Bounded x, ElementType type) {
  if (!std::isfinite(x.value) || !std::isfinite(x.bound)) return x;
  const double threshold = overflow_threshold(type);
  const double magnitude = std::fabs(x.value);
  if (magnitude - x.bound >= threshold) return {std::copysign(kInfinity, x.value), 0};
  if (magnitude + x.bound >= threshold) return {x.value, kInfinity};
  return x;
}

// One f32 rounding of the result of an operation (and one f64 rounding of the truth).
Bounded rounded_f32(double value, double bound) {
  const double rounding = (u32 + u64) * (std::fabs(value) + bound) + nu32;
  return overflow_checked({value, bound + rounding}, ElementType::f32);
}

// A result computed from operands of which one is not finite: exact when every operand
// is (the backend then has the same operands), else no claim.
Bounded not_finite_result(double value, bool operands_exact) {
  return {value, operands_exact ? 0 : kInfinity};
}

bool finite(Bounded x) { return std::isfinite(x.value) && std::isfinite(x.bound); }

double exact_function(Function function, double x) {
  switch (function) {
    case Function::relu: return x > 0 ? x : 0;
    case Function::sigmoid: return 1 / (1 + std::exp(-x));
    case Function::tanh: return std::tanh(x);
    case Function::gelu_erf: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case Function::gelu_tanh: return 0.5 * x * (1 + std::tanh(kGeluTanhScale * (x + kGeluTanhCubic * x * x * x)));
    case Function::exp: return std::exp(x);
    case Function::sqrt: return std::sqrt(x);
    case Function::rsqrt: return 1 / std::sqrt(x);
    case Function::log: return std::log(x);
    case Function::abs: return std::fabs(x);
    case Function::silu: return x / (1 + std::exp(-x));
    case Function::max:
    case Function::min:
    case Function::to_f16:
    case Function::to_bf16:
    case Function::to_f32: break;
  }
  return 0;
}

// The minimum of a function that decreases up to it and increases after it; NaN for
// the monotone ones.
double single_minimum_at(Function function) {
  switch (function) {
    case Function::gelu_erf: return kGeluArgmin;
    case Function::gelu_tanh: return kGeluTanhArgmin;
    case Function::silu: return kSiluArgmin;
    default: return std::numeric_limits<double>::quiet_NaN();
  }
}

// Whether an argument as low as `low_argument` is outside `function`'s domain (sqrt of a
// negative number, rsqrt or log of one <= 0): there the backend may get NaN or infinity.
bool outside_domain(Function function, double low_argument) {
  switch (function) {
    case Function::sqrt: return low_argument < 0;
    case Function::rsqrt:
    case Function::log: return low_argument <= 0;
    default: return false;
  }
}

// The implementation's error of `function` at an argument of magnitude <= `argument`
// whose result has magnitude <= `result`, in units of (u_f32 + u64) (header comment).
double implementation_ulps(Function function, double argument, double result) {
  switch (function) {
    case Function::exp:
    case Function::tanh:
    case Function::sqrt:
    case Function::rsqrt:
    case Function::log: return 4 * result;
    case Function::sigmoid:
    case Function::silu: return 6 * result;
    case Function::gelu_erf: return 3.5 * argument + result;
    case Function::gelu_tanh: return 6 * argument + result;
    case Function::relu:
    case Function::abs:
    case Function::max:
    case Function::min:
    case Function::to_f16:
    case Function::to_bf16:
    case Function::to_f32: return 0;
  }
  return 0;
}

}  // namespace

double overflow_threshold(ElementType type) {
  switch (type) {
    case ElementType::f16: return 65520.0;
    case ElementType::bf16: return std::ldexp(1.0, 128) - std::ldexp(1.0, 119);
    case ElementType::f32: return std::ldexp(1.0, 128) - std::ldexp(1.0, 103);
    case ElementType::i32:
    case ElementType::i64:
    case ElementType::u8: return kInfinity;  // integer stores saturate (integer_stored)
    case ElementType::e4m3: return 464.0;      // 448 + half an ulp: rounds past 448 (then saturates)
    case ElementType::e5m2: return 61440.0;    // 57344 + half an ulp
  }
  return kInfinity;
}

Bounded stored_as(ElementType type, Bounded x) {
  if (is_integer(type)) {  // every value of x +- e stores as an integer between these two
    const double value = integer_stored(type, x.value);
    if (!finite(x)) return {value, kInfinity};
    const double low = integer_stored(type, x.value - x.bound), high = integer_stored(type, x.value + x.bound);
    return {value, std::max(value - low, high - value)};
  }
  if (type == ElementType::f32 || !finite(x)) return x;
  const double rounding = unit_roundoff(type) * (std::fabs(x.value) + x.bound) + absolute_floor(type);
  // FP8 stores saturate (.satfinite): past the threshold the error is not a rounding's.
  if (is_fp8(type) && std::fabs(x.value) + x.bound >= overflow_threshold(type)) return {x.value, kInfinity};
  return overflow_checked({x.value, x.bound + rounding}, type);
}

double f32_matmul_factor_roundoff(F32Matmul mode) {
  switch (mode) {
    case F32Matmul::tf32: return kTf32FactorRoundoff;
    case F32Matmul::x3tf32: return 2 * kUnitRoundoffTf32 * kUnitRoundoffTf32;
    case F32Matmul::f32: return 0;
  }
  return 0;
}

double f32_matmul_summation_factor(F32Matmul mode) {
  switch (mode) {
    case F32Matmul::tf32: return kTensorCoreSummationFactor;
    case F32Matmul::x3tf32: return 3 * kTensorCoreSummationFactor;
    case F32Matmul::f32: return kRoundToNearestSummationFactor;
  }
  return kRoundToNearestSummationFactor;
}

double fp8_matmul_summation_factor(Fp8Accumulation accumulation) {
  if (accumulation == Fp8Accumulation::f32) return kTensorCoreSummationFactor;
  return kTensorCoreSummationFactor * kUnitRoundoffFp8WgmmaAccumulator / u32;
}

Bounded f32_matmul_factor(F32Matmul mode, Bounded x) {
  if (mode == F32Matmul::f32 || !finite(x)) return x;
  const double rounding = f32_matmul_factor_roundoff(mode) * (std::fabs(x.value) + x.bound) + nu32;
  return overflow_checked({x.value, x.bound + rounding}, ElementType::f32);
}

Bounded literal(double value) {
  if (!(std::fabs(value) <= std::numeric_limits<float>::max())) return {value, kInfinity};
  return {value, std::fabs(value - static_cast<double>(static_cast<float>(value)))};
}

Bounded negate(Bounded x) { return {-x.value, x.bound}; }

Bounded binary(BinaryOp op, Bounded x, Bounded y) {
  const double a = x.value, b = y.value, ea = x.bound, eb = y.bound;
  double value = 0, bound = 0;
  switch (op) {
    case BinaryOp::add: value = a + b; bound = ea + eb; break;
    case BinaryOp::sub: value = a - b; bound = ea + eb; break;
    case BinaryOp::mul:
      value = a * b;
      bound = times(std::fabs(a), eb) + times(std::fabs(b), ea) + times(ea, eb);
      break;
    case BinaryOp::div:
      value = a / b;
      if (eb >= std::fabs(b)) return not_finite_result(value, ea == 0 && eb == 0);
      bound = (times(std::fabs(a), eb) + std::fabs(b) * ea) / (std::fabs(b) * (std::fabs(b) - eb));
      break;
  }
  if (!finite(x) || !finite(y) || !std::isfinite(value))
    return not_finite_result(value, ea == 0 && eb == 0);
  // Exact operands whose sum, difference or product is an f32 value: every backend computes it
  // exactly (index arithmetic such as `s + 3`: a causal mask's comparison then decides exactly,
  // not both ways). A quotient stays rounded (--use_fast_math approximates it).
  if (op != BinaryOp::div && bound == 0 && static_cast<double>(static_cast<float>(value)) == value) return {value, 0};
  return rounded_f32(value, bound);
}

Bounded call(Function function, Bounded x, Bounded y) {
  // A conversion: one rounding to its type (the backends compute in f32, so to_f32 is exact).
  if (const std::optional<ElementType> type = conversion_type(function)) return stored_as(*type, x);
  if (function == Function::max || function == Function::min) {
    // monotone in both arguments: the winner's e, or how far the other argument reaches past
    // the value (rounded up by an ulp of its reach), within max(e_x, e_y)
    const bool max = function == Function::max;
    const double value = max ? std::max(x.value, y.value) : std::min(x.value, y.value);
    if (x.value == y.value) return {value, std::max(x.bound, y.bound)};
    const Bounded& winner = (x.value == value) ? x : y;
    const Bounded& other = (x.value == value) ? y : x;
    const double reach = max ? other.value + other.bound : other.value - other.bound;
    const bool reaches = max ? reach > value : reach < value;
    const double past = reaches ? std::fabs(reach - value) + 0x1p-52 * std::fabs(reach) : 0;
    return {value, std::min(std::max(x.bound, y.bound), std::max(winner.bound, past))};
  }
  const double value = exact_function(function, x.value);
  if (!finite(x) || !std::isfinite(value)) return not_finite_result(value, x.bound == 0);
  // abs: an exact operation that moves no value farther than its argument moves.
  if (function == Function::abs) return {value, x.bound};
  // An argument that may leave the domain (sqrt, rsqrt, log): the backend may get NaN.
  if (x.bound > 0 && outside_domain(function, x.value - x.bound)) return {value, kInfinity};
  // The image of [x - e, x + e].
  double low = exact_function(function, x.value - x.bound);
  double high = exact_function(function, x.value + x.bound);
  if (low > high) std::swap(low, high);  // rsqrt decreases
  if (const double argmin = single_minimum_at(function); !std::isnan(argmin)) {
    if (x.value - x.bound < argmin && argmin < x.value + x.bound) low = std::min(low, exact_function(function, argmin));
  }
  const double propagated = std::max(high - value, value - low);
  const double largest = std::max(std::fabs(low), std::fabs(high));
  const double ulps = implementation_ulps(function, std::fabs(x.value) + x.bound, largest);
  if (ulps == 0) return {value, propagated};  // relu: an exact operation
  double implementation = (u32 + u64) * ulps + nu32;
  // silu = x / (1 + expf(-x)): below ln(FLT_MAX) = -88.72..., expf(-x) may overflow to
  // infinity and the result to 0, however far from 0 the exact value is.
  if (function == Function::silu && x.value - x.bound < -kExpOverflowArgument) implementation += largest;
  return overflow_checked({value, propagated + implementation}, ElementType::f32);
}

Reduction::Reduction(Bounded initial, double factor) {
  factor_ = factor;
  sum_ = initial.value;
  propagated_ = initial.bound;
  magnitude_ = std::fabs(initial.value) + initial.bound;
  operands_ = 1;
}

Bounded Reduction::finish() const {
  if (!std::isfinite(sum_) || !std::isfinite(magnitude_))
    return not_finite_result(sum_, propagated_ == 0);
  const double n = static_cast<double>(operands_);
  const double t = factor_ * n * u32;
  if (t >= 1) return {sum_, kInfinity};
  const double order = t / (1 - t) * magnitude_ + n * u64 * magnitude_ + n * nu32;
  // A partial sum may be as large as the magnitudes: no claim if that can overflow.
  if (magnitude_ + order >= overflow_threshold(ElementType::f32)) return {sum_, kInfinity};
  return {sum_, propagated_ + order};
}

}  // namespace polyfuse::reference
