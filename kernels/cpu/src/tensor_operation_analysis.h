// Internal: what validation learns about a tensor-operation configuration, used to
// build its kernels (tensor_operation.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "polyfuse/cpu/tensor_operation.h"

namespace polyfuse::cpu::detail {

// One operand of the primitive block: how it maps onto the block's (M, N) = (rows,
// columns) and its leading dimension (or vector stride).
struct BlockOperand {
  Layout layout = Layout::col_major;
  Broadcast broadcast = Broadcast::matrix;
  int64_t ld = 0;
};

struct Analysis {
  // Dimension indices (-1: absent).
  int prim_m = -1, prim_n = -1, prim_k = -1, prim_br = -1;
  std::vector<int> shared;  // shared loop dims, in order
  std::vector<int> seq;     // seq loop dims, in order
  // Primitive block sizes (1 for an absent dimension).
  int64_t m = 1, n = 1, k = 1, batch = 1;
  BlockOperand in0, in1, out;
  int64_t br_stride_in0 = 0, br_stride_in1 = 0;
};

// Validates (throwing ConfigError) and analyses.
Analysis analyse(const TensorOperationConfig& config);

}  // namespace polyfuse::cpu::detail
