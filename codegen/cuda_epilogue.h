// Pointwise epilogues on accumulator fragments (paper §VII-A): one instance of an
// epilogue statement computes its expression on the four values a lane holds of one
// 16x8 accumulator fragment. The matmul result is read from the accumulators, results
// of earlier epilogue statements from their register tiles, and input tensors are loaded
// straight into fragment-shaped tiles (a full matrix, or a vector broadcast along rows
// or columns). Only live-out results are stored, through the accumulator store.
#pragma once

#include <string>
#include <vector>

#include "codegen/cuda_statements.h"

namespace polyfuse {

// One instance: args = (i, j, batch..., m, n): the fragment within the warp tile and the
// global index of its first element.
std::string print_epilogue_instance(const CudaStatementContext& context, const PointwiseStage& stage,
                                    const std::vector<std::string>& args);

// The store of a live-out epilogue result's block tile; args = its origin.
std::string print_epilogue_store(const CudaStatementContext& context, const PointwiseStage& stage,
                                 const std::vector<std::string>& args);

}  // namespace polyfuse
