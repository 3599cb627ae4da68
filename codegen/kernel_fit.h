// The fit of a mma.sync kernel to the registers and shared memory of its arch: the warp tile
// (and, when the user chose neither tile, the block tile) shrunk until the register model
// (codegen/register_model.h) fits.
//
//   CudaKernelLayout layout = fitted_layout(matmuls, plan, options, /*stage_vectors=*/true, /*chain_reads=*/{});
//   // options.warp / options.block now say the tiles the layout was made for
#pragma once

#include <string>
#include <vector>

#include "codegen/cuda_kernel_layout.h"
#include "frontend/program.h"
#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// The kernel layout, with the warp tile shrunk (when options.choose_warp: halving N, then M,
// as long as the block has at most the arch's threads) until the register model
// (codegen/register_model.h) fits the registers a thread of the block may have; when no warp
// tile of the block fits and the user chose neither tile, the block halved (N, then M, down to
// 32) with its default warp tile, shrunk again; UserError when none fits. `stage_vectors`: the
// epilogue's vectors go through shared memory (not beside a fused row chain, whose shared
// memory follows the accumulator scratch). `chain_reads`: the tensors a row chain fused after
// the epilogue reads (fused_chain_reads of the whole def; no epilogue result takes their tiles).
CudaKernelLayout fitted_layout(const Program& program, const KernelPlan& plan, GpuOptions& o, bool stage_vectors,
                               const std::vector<std::string>& chain_reads);

}  // namespace polyfuse
