// The resources of one generated GPU kernel, derived from its plan and options: the
// warp arrangement, the register fragments of a warp, and where each operand's shared
// tiles live in the block's dynamic shared memory.
#pragma once

#include <string>
#include <vector>

#include "frontend/program.h"
#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// One operand's shared-memory tile: the last two dimensions of the tensor, in the
// tensor's own index order (a column-major A(k, m) tile is block.k rows × block.m columns).
struct SharedTile {
  std::string tensor;
  OperandLayout layout = OperandLayout::row_major;
  int rows = 0, cols = 0;   // in the tensor's index order
  int bytes = 0;            // one buffer
  int offset = 0;           // of buffer 0 in dynamic shared memory; buffer b at offset + b * bytes
};

// Everything the statement printer and the kernel preamble need.
struct CudaKernelLayout {
  int warps_y = 1, warps_x = 1, split_k = 1;  // warps per block along m, n and k
  int threads = 32;
  int fragments_m = 1, fragments_n = 1;       // accumulator fragments of a warp tile
  SharedTile a, b;
  int shared_bytes = 0;                       // dynamic shared memory of a block
  int scratch_offset = 0;                     // accumulator reorder scratch (aliases the tiles)
};

// The layout of the kernel of `plan` (one matmul) with `options` and 16-bit operands.
CudaKernelLayout cuda_kernel_layout(const KernelPlan& plan, const GpuOptions& options);

// C spelling of an element type: "__half", "__nv_bfloat16", "float".
std::string cuda_type(ElementType type);

}  // namespace polyfuse
