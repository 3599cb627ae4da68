// Tensor contents as every backend's checks see them: one flat, row-major f32 buffer per
// tensor (the last dimension contiguous), sized from the Program's bound sizes.
//
// A buffer of an f16/bf16 tensor holds only values representable in that type (the
// caller rounds; random_tensors does). Backends convert to their own storage at the
// boundary (runtime/cpu: uint16_t bit patterns, see element_rounding.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "frontend/program.h"

namespace polyfuse::reference {

// Tensor name -> its elements, row-major.
using TensorData = std::map<std::string, std::vector<float>>;

// The extent of `size` in `program`: the literal, or the bound value of the named size.
// Throws UserError (located at the def) if the size is not bound.
std::int64_t bound_extent(const Program& program, const Size& size);

// Extents of every dimension of `tensor`, outermost first (see bound_extent).
std::vector<std::int64_t> bound_shape(const Program& program, const Tensor& tensor);

// Number of elements of `tensor` (1 for a rank-0 tensor).
std::int64_t element_count(const Program& program, const Tensor& tensor);

// Element counts of every tensor of `program`, in order (after checking the sizes:
// bound_extent). Throws std::invalid_argument, naming `who`, when `tensors` lacks a
// buffer of that many elements for an input or output.
std::vector<std::int64_t> checked_element_counts(const Program& program, const TensorData& tensors,
                                                 const std::string& who);

// The interval a tensor's random values are drawn from: [low, high).
struct ValueRange {
  double low = -1;
  double high = 1;
};
// Tensor name -> its range (`polyfuse run --input-range`); a tensor not named keeps [-1, 1).
using ValueRanges = std::map<std::string, ValueRange>;

// Values uniform in `range` (by default [-1, 1)), rounded to `type`, from a fixed generator
// (a 64-bit SplitMix stream seeded with `seed`): the same on every machine and compiler.
// The default keeps sums of products well-conditioned for f16 outputs (|a*b| <= 1).
std::vector<float> random_values(std::int64_t count, ElementType type, std::uint64_t seed, ValueRange range = {});

// Integers uniform in [0, limit), from the same generator as random_values.
std::vector<float> random_integers(std::int64_t count, std::int64_t limit, std::uint64_t seed);

// A buffer for every input and output of `program`, filled with random_values (an integer
// tensor: random_integers below the smallest extent it indexes in a gather, below 4 when it
// indexes none): the
// i-th tensor in signature order uses seed `seed * 1000003 + i`. Outputs get random
// values too, so code that skips a zero-initialisation (`+=!`) is caught, and `+=`
// starts from known values. `ranges` gives some floating-point tensors another interval (for
// a program whose functions need one: log of a positive input); a name that is no input or
// output of `program`, an integer tensor, or a range that is empty, not finite or beyond
// the type's finite values throws UserError naming it.
TensorData random_tensors(const Program& program, std::uint64_t seed, const ValueRanges& ranges = {});

}  // namespace polyfuse::reference
