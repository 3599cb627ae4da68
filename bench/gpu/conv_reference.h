// The host reference of the convolution idioms on sampled output elements: the value the
// reference evaluator defines for the .tc program (f32 sums over r, s, c in that order, the
// padding read as zero, then the bias, the residual and ReLU in f32, O rounded once to the
// element type), so the checks need no full convolution on the host.
#pragma once

#include <cstdint>
#include <string>

#include "bench/gpu/conv_idioms.h"
#include "bench/gpu/host_reference.h"

namespace polyfuse::bench {

// Random inputs of `idiom` on `shape` (make_host_tensors over conv_tensors).
HostProblem make_conv_problem(const ConvIdiom& idiom, const ConvShape& shape, DType dtype, std::uint64_t seed);

// The reference value of O's element `flat_index` (row-major over n, p, q, k).
float conv_reference_element(const ConvIdiom& idiom, const ConvShape& shape, DType dtype, const HostProblem& problem,
                             std::int64_t flat_index);

// "O[n, p, q, k]" for flat index `index` of O.
std::string conv_output_position(const ConvShape& shape, std::int64_t index);

}  // namespace polyfuse::bench
