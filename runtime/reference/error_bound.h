// Values with error bounds: the arithmetic of evaluate_exact.h, one rule per operation.
//
// A Bounded {value, bound} is the exact value x of some quantity of a program (real
// arithmetic, computed in f64) and a bound e such that every conforming backend computes
// a value x^ with |x^ - x| <= e. "Conforming" is what the language and the backends
// promise (evaluate.h has the f32 reference's version of it):
//   - right-hand sides are computed in f32 with IEEE +, -, *, / rounded to nearest (FMA
//     contraction allowed: it only removes roundings), and exp/tanh/erf accurate to
//     2 ulps (CUDA's expf/tanhf/erff without --use_fast_math; glibc's are at least as
//     accurate); literals are rounded to f32;
//   - reductions accumulate in f32 in any order (see Reduction below);
//   - a value stored in an f16/bf16 tensor is rounded to nearest once; a backend may also
//     round a computed matmul factor to the matmul's operand type (the GPU path stores
//     prologue results in shared memory as f16/bf16) and may keep a temporary wider
//     than its type (in registers): each rounding it may do is in the bound.
// The bound also covers the f64 computation of x itself (unit roundoff u64 = 2^-53 next
// to every f32 one, 2 ulps of f64 for the functions), so |x^ - x(f64)| <= e.
//
// Notation: u_T = unit roundoff of T (f16 2^-11, bf16 2^-8, f32 2^-24); one rounding to T
// of a value y errs by at most u_T |y| + nu_T, nu_T covering results near zero:
// nu_f16 = 2^-24 (the f16 subnormal spacing), nu_bf16 = nu_f32 = 2^-126 (the smallest
// normal number: also right when subnormals are flushed to zero). Error terms are bounded
// with the computed operand y^, |y^| <= |y| + e_y, so the rules hold to all orders except
// where a rule says "first order".
//
// Overflow: when x +- e reaches the value that rounds to infinity in the result's type,
// the backend may or may not get an infinity: the bound becomes +inf (no claim); when all
// of x +- e does, the result is that infinity exactly (bound 0). NaN values are exact.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "frontend/element_type.h"
#include "frontend/expr.h"
#include "polyfuse/gpu_target.h"

namespace polyfuse::reference {

// u_f32, u64 and nu_f32 of the notation above, and infinity (a bound that makes no claim).
inline constexpr double kUnitRoundoffF32 = 0x1p-24;
inline constexpr double kUnitRoundoffF64 = 0x1p-53;
inline constexpr double kAbsoluteFloorF32 = 0x1p-126;
inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The magnitude from which round to nearest gives an infinity in `type`: the largest
// finite value plus half an ulp of it.
double overflow_threshold(ElementType type);

// An exact value and the largest distance of any conforming backend's value from it.
struct Bounded {
  double value = 0;
  double bound = 0;
};

// The constant factor c of the reduction rule (see Reduction): an f32 sum of n operands
// errs by at most gamma(c n u_f32) sum |operands| in every order a backend may use.
// Tensor cores (products of f16/bf16 operands on the GPU path) add blocks of terms and
// truncate: c = 3. Every other reduction runs on round-to-nearest additions (CPU, the
// emulator, the reference; the GPU path has no f32 matmuls): c = 1.
inline constexpr double kTensorCoreSummationFactor = 3;
inline constexpr double kRoundToNearestSummationFactor = 1;

// How an FP8 matmul's sums may be accumulated. Its products are exact in f32 (4 x 4 or 3 x 3
// significant bits), so the sum is the only rounding:
//   f32:    f32 sums: the CPU target, and the emulator's FP8 wgmma (exact products added in
//           f32 in k order) — tensor-core block additions at most: summation factor c = 3.
//   hopper: FP8 wgmma on a real sm_90a, whose accumulator is not documented; DeepSeek-V3's
//           technical report (arXiv 2412.19437, section 3.3.2) measures that it keeps only
//           about 14 bits on H800. Counted as one truncation to 14 significant bits per
//           addition, u_acc = 2^-13 of the result (a 14-bit truncation loses < 2^-13), in
//           the same block derivation as c = 3 (Reduction): 3 u_acc = 3 * 2^11 u_f32, i.e.
//           summation factor 6144. No claim (bound infinity) once 6144 (K + 1) u_f32 >= 1,
//           K >= 2730.
enum class Fp8Accumulation { f32, hopper };
inline constexpr double kUnitRoundoffFp8WgmmaAccumulator = 0x1p-13;
double fp8_matmul_summation_factor(Fp8Accumulation accumulation);

// Matmuls with f32 operands on tensor cores (F32Matmul, the GPU path's `f32_matmul`):
//   tf32:   each factor reduced to TF32 (10 explicit mantissa bits): rounded to nearest by
//           cvt.rna on the mma.sync path (u_tf32 = 2^-11), truncated on the wgmma path (f32
//           values read from shared memory, the low 13 bits not rounded in: < 2^-10), so
//           2^-10 per factor (kTf32FactorRoundoff): a product errs by <= 2^-9 + 2^-20
//           relative (exact in f32 after that: 11 x 11 significant bits); the mma.m16n8k8 and
//           wgmma k8 blocks add 8 products and truncate like the f16 ones: summation factor 3.
//   3xtf32: a factor x = big + small with big = tf32(x), small = tf32(x - big): their sum
//           is within u_tf32^2 |x| of x, and the dropped small*small term is within
//           u_tf32^2 (1 + u_tf32)^2 |x y|; counted as 2 u_tf32^2 = 2^-21 per factor (a
//           product errs by <= 4 u_tf32^2 + ..., above the 3 u_tf32^2 it can). Three
//           products per term: 3K block additions, summation factor 9.
//   f32:    exact f32 on CUDA cores: no factor rounding, round-to-nearest sums (factor 1).
// Each factor also gets nu_f32 (TF32 has f32's exponent range).
inline constexpr double kUnitRoundoffTf32 = 0x1p-11;
inline constexpr double kTf32FactorRoundoff = 0x1p-10;
double f32_matmul_factor_roundoff(F32Matmul mode);
double f32_matmul_summation_factor(F32Matmul mode);
// x as a factor of an f32 matmul in `mode`: e + u_mode (|x| + e) + nu_f32 (nothing for f32).
Bounded f32_matmul_factor(F32Matmul mode, Bounded x);

// x stored in a tensor of `type`: one rounding to nearest, e + u_T (|x| + e) + nu_T
// (nothing for f32: every computed value already is one).
Bounded stored_as(ElementType type, Bounded x);

// A literal as the backends use it: the value as written, its f32 rounding as the bound.
Bounded literal(double value);

// -x: exact.
Bounded negate(Bounded x);

// x op y in f32:
//   x + y, x - y: e_x + e_y;   x * y: |x| e_y + |y| e_x + e_x e_y;
//   x / y: (|x| e_y + |y| e_x) / (|y| (|y| - e_y)) while e_y < |y|, else no claim;
// then the operation's own rounding, (u_f32 + u64)(|r| + e) + nu_f32 for the result r.
Bounded binary(BinaryOp op, Bounded x, Bounded y);

// function(x[, y]) in f32. Propagation: the image of the interval [x - e, x + e] (relu,
// exp, sigmoid, tanh, sqrt and log are increasing, rsqrt decreasing; gelu_erf, gelu_tanh
// and silu decrease up to their minimum at x = -0.75179..., -0.75246..., -1.27846... and
// increase after it); the bound is the farthest end of the image from f(x). An interval
// that reaches outside the domain (below 0 for sqrt, to 0 or below for rsqrt and log)
// makes no claim (bound infinity): a backend may get NaN there. max and min: the farther end
// of [max(x - e_x, y - e_y), max(x + e_x, y + e_y)] (min alike) from the value, at most
// max(e_x, e_y) (an argument far below the maximum does not count); abs: e_x; relu, abs, max, min are exact operations. Then the implementation's error,
// first order, with M = max |f| over the image:
//   exp, tanh, sqrt, log: 2 ulps, 4 u M (1 ulp of y is at most 2 u |y|);
//   rsqrt = 1 / sqrtf(x): two roundings, within 2 ulps: 4 u M;
//   sigmoid = 1 / (1 + expf(-x)): 4 u (exp, damped by t / (1 + t) <= 1) + u (add) + u
//     (divide) relative: 6 u M; silu = x / (1 + expf(-x)) likewise (x is exact): 6 u M,
//     and below x = -88, where expf(-x) may overflow and the result become 0, plus M;
//   gelu_erf = 0.5 x (1 + erff(x * 0.70710678f)): the argument's two roundings move erf by
//     at most (2 / sqrt(pi)) exp(-x^2 / 2) 2 u |x| / sqrt 2 <= 0.97 u, erff errs by 4 u
//     (|erf| <= 1), the add rounds by <= 2 u: |1 + erf| errs by < 7 u; times 0.5 |x|
//     (exact), plus the product's rounding: 3.5 u |x| + u M;
//   gelu_tanh = 0.5 x (1 + tanhf(0.79788456f (x + 0.044715f x x x))): the tanh argument z
//     errs by <= 7 u |z| (two literals, four products, one same-signed add), which moves
//     tanh by <= sech^2(z) 7 u |z| <= 3.2 u; tanhf errs by 4 u, the add by 2 u: |1 + t|
//     errs by < 9.2 u, times 0.5 |x|: 4.6 u |x|; with the product's rounding, 6 u |x| + u M;
// plus 2 ulps of f64 (4 u64 M) for the truth's own libm call, and nu_f32.
Bounded call(Function function, Bounded x, Bounded y = {});

// An f32 reduction: operands added one by one (the initial value, then each term); the
// result's bound (finish) covers every order a backend may sum in. With n operands o_i
// (n = K + 1: the initial value of the accumulator, zero for +=!, and the K terms),
// A = sum (|o_i| + e_i) and c the summation factor:
//   e = sum e_i + gamma(c n u_f32) A + n u64 A + n nu_f32,   gamma(t) = t / (1 - t).
// Derivation of the middle term (deterministic, any order): in a binary summation tree of
// n operands every operand passes through at most n - 1 additions. An addition rounded
// to nearest perturbs by <= u, so any such order (the reference's, pairwise, blocked,
// FMA chains, split-K partial sums) errs by <= gamma((n - 1) u) A (Higham, Accuracy and
// Stability of Numerical Algorithms, 2nd ed., Lemma 3.1 and section 4.2): c = 1. A
// tensor core adds b products and the accumulator in one step (b = 4 for mma.m8n8k4, 8
// or more for m16n8k16): it aligns them to the largest, keeping at least 24 bits, and
// truncates (Fasi, Higham, Mikaitis, Pranesh, "Numerical behavior of NVIDIA tensor
// cores", PeerJ Computer Science 2021). Each of the b + 1 alignments loses < 2 u of the
// largest operand and the normalisation < 2 u of the result: one block errs by
// < 2 u (b + 2) times the magnitudes added so far (<= A), and the K / b blocks by
// < 2 u (b + 2) / b K A <= 3 u K A for b >= 4 (to first order in the accumulated error;
// gamma's denominator covers the rest); up to three round-to-nearest additions of
// split-K partial sums (u A each) fit in the "+ 1" of n: c = 3.
// Why not the probabilistic sqrt(n) law (Higham & Mary, SIAM J. Sci. Comput. 2019)? It
// needs independent, mean-zero rounding errors; a tensor core truncates towards zero,
// which is biased: a sum of same-signed terms (ReLU outputs times positive weights) errs
// like n u, not sqrt(n) u (tests/reference/error_bound_test.cc shows it). For
// round-to-nearest it would be a model, not a bound, and would gain only
// sqrt(n) / lambda (lambda ~ 9 for a false failure rate below 1e-14 per element): 2x at
// K = 300. The deterministic bound costs a factor of about sqrt(n) against typical
// errors, and still fails an f32 output that went through f16 on the way, f32 inputs
// converted to f16, or a sum that misses one term (tests/reference).
class Reduction {
 public:
  // Starts a reduction from `initial` (the element's value for +=, {0, 0} for +=!) whose
  // summation factor is `factor` (kTensorCoreSummationFactor or kRoundToNearest...).
  Reduction(Bounded initial, double factor);
  // Adds one term.
  void add(Bounded term) {
    sum_ += term.value;
    propagated_ += term.bound;
    magnitude_ += std::fabs(term.value) + term.bound;
    ++operands_;
  }
  // The sum in f32 as any order gives it (no rounding to a tensor type yet).
  Bounded finish() const;

 private:
  double factor_ = 1;
  double sum_ = 0;
  double propagated_ = 0;  // sum e_i
  double magnitude_ = 0;   // A
  std::int64_t operands_ = 0;
};

}  // namespace polyfuse::reference
