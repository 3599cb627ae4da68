// Scalar reference of a whole tensor operation (any dims, strides, primitives).
#pragma once

#include "reference.h"

namespace polyfuse::cpu::testing {

// Number of elements a tensor spans with `strides` over the config's sizes.
int64_t extent(const TensorOperationConfig& c, const std::vector<int64_t>& strides);

// Applies the operation to f32 copies of the inputs; `out` holds the initial output.
void reference_tensor_operation(const TensorOperationConfig& c, const std::vector<float>& in0,
                                const std::vector<float>& in1, std::vector<float>& out);

// Runs `config` through TensorOperation and the reference on random data; returns the
// max abs difference and sets `tolerance`.
double run_and_compare(const TensorOperationConfig& config, double& tolerance);

// The seed's §5.3 benchmark configuration number `which` (1..3) with the three outer
// loop sizes replaced by `outer` (the seed uses 32, 32, 8).
TensorOperationConfig seed_configuration(int which, int64_t m0 = 32, int64_t n0 = 32, int64_t k0 = 8);

}  // namespace polyfuse::cpu::testing
