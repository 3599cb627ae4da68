// The CUDA kernel of a plan's attention (schedule/attention.h), sm_80 mma.sync, on every arch but
// sm_90a (which gets codegen/attention_wgmma_kernel.h's: emit_attention_kernel calls it there):
// a block of 4 warps takes 64 query rows (16 a warp) of one batch slice (blockIdx.y); Q's
// [64][D] tile stays in shared memory, the keys and values walk through two cp.async stages of
// [64][D] K and [64][Dv] V tiles; per tile each warp computes its 16 x 64 scores
// (m16n8k16, K read as the column-major B operand), applies the program's steps on the score
// (scale, mask: with the element's query and key indices), masks keys past the end, runs the
// online softmax (kernels/cuda/pf_attention.cuh), turns the probabilities into A fragments in
// registers and adds P * V to its 16 x Dv output accumulators. At the end the division by the
// row sum, and the accumulator store. D and Dv are padded to 32, 64 or 128 columns (zero
// filled); rows and keys past the ends are zero filled and masked.
#pragma once

#include <string>
#include <vector>

#include "codegen/cuda_emitter.h"
#include "frontend/program.h"

namespace polyfuse {

// The kernel (with its host launcher) called `name` of the statements `statements` of
// `program` (a kernel program of the plan: the attention's statements), with `options`
// (block, warp and macro-MMA options other than the defaults are refused: the kernel has its
// own tiles).
EmittedKernel emit_attention_kernel(const Program& program, const std::string& name,
                                    const std::vector<std::string>& statements, const GpuOptions& options);

}  // namespace polyfuse
