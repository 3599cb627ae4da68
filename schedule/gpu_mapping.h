// Mapping to the GPU's compute hierarchy (paper §IV-B, IV-E): fixes the members of the
// band below each "block" mark to the parameters blockIdx_z (batch, when present; several
// batch dimensions: batch_0, batch_1, .., linearised onto blockIdx.z),
// blockIdx_y, blockIdx_x, and those below each "warp" mark to warp_y, warp_x (and
// warp_k under split-K), with a filter between the mark and the band:
//
//   mark block
//     filter { S[...] : floor(m/BM) = blockIdx_y and floor(n/BN) = blockIdx_x }
//       band ...                   one iteration per block: the AST has no loop here
//
// Pointwise epilogue statements run in the warps with warp_k = 0 only. The code
// generator binds the parameters to blockIdx.* and to the warp index of the thread.
#pragma once

#include <isl/cpp.h>

#include <string>
#include <vector>

#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// Names of the parameters that stand for block indices, outermost first, for a kernel
// with `batch_rank` batch dimensions: blockIdx_z (one batch dimension) or batch_0,
// batch_1, .. (several, linearised onto blockIdx.z: the kernel's preamble computes them),
// then blockIdx_y, blockIdx_x.
std::vector<std::string> block_parameters(int batch_rank);

// Names of the parameters that stand for the warp coordinates: warp_y, warp_x, warp_k.
std::vector<std::string> warp_parameters();

// Inserts the mapping filters. Expects a tree with block and warp marks.
isl::schedule map_to_gpu(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& options);

}  // namespace polyfuse
