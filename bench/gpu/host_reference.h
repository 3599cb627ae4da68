// The host side of a problem: random inputs (the reference evaluator's generator), their
// 16-bit storage, and the expected value of sampled output elements, computed the way
// the reference evaluator defines the idiom (f32 accumulation in k order, one rounding
// of D), so checks do not need a full (M N K) host matmul.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/gpu/idioms.h"
#include "bench/gpu/sizes.h"
#include "frontend/element_type.h"

namespace polyfuse::bench {

// The ElementType of `dtype`.
ElementType element_type(DType dtype);

// Every tensor of a problem on the host: values (rounded to the element type) and the
// 16-bit patterns the GPU reads. The output D is only described (in `tensors`): it can
// be large (8 x 4096 x 4096) and the checks read the GPU's copy.
struct HostProblem {
  std::vector<TensorSpec> tensors;                    // signature order, D last
  std::map<std::string, std::vector<float>> values;   // inputs, by tensor name
  std::map<std::string, std::vector<std::uint16_t>> bits;  // inputs, by tensor name
  // A row idiom's last reference row (its flat row index, its D values before rounding):
  // the checks sample whole rows, so each row's N dot products are computed once.
  mutable std::int64_t cached_row = -1;
  mutable std::vector<float> cached_values;
};

// Random inputs for `idiom` at `size`: tensor i (signature order) gets
// reference::random_values(elements, type, seed * 1000003 + i), as random_tensors does.
HostProblem make_host_problem(const Idiom& idiom, DType dtype, const ProblemSize& size, std::uint64_t seed);
// The same for any list of tensors (signature order; the outputs only described).
HostProblem make_host_tensors(std::vector<TensorSpec> tensors, DType dtype, std::uint64_t seed);

// Flat indices into D of the elements to check: every element when D has at most
// `samples`, else `samples` distinct indices (the first and last element included) from
// a fixed generator seeded with `seed`, sorted.
std::vector<std::int64_t> sample_indices(std::int64_t elements, int samples, std::uint64_t seed);

// The flat indices into D a variant's output is checked at: sample_indices for the
// elementwise idioms; for the row idioms (a softmax or norm couples a whole row) every
// element of a few whole rows (the first, the last, and two more from the generator).
std::vector<std::int64_t> check_indices(const Idiom& idiom, const ProblemSize& size, std::int64_t elements,
                                        int samples, std::uint64_t seed);

// The reference value of D's element `flat_index` (row-major over (b,) m, n): f32 sums in
// k order of the (relu'd) A times B (plus E times F), plus bias, then the activation,
// rounded once to the element type. Row idioms: the row's statements in the .tc's order
// (max, exp, sum, divide; mean, centred variance, normalise) in f32, rounded once.
float reference_element(const Idiom& idiom, DType dtype, const ProblemSize& size, const HostProblem& problem,
                        std::int64_t flat_index);

// GELU as the reference evaluator defines it: 0.5 x (1 + erf(x / sqrt 2)).
float gelu(float x);

}  // namespace polyfuse::bench
