// The CUDA kernel of a plan's attention (schedule/attention.h) on sm_90a's warpgroup MMAs
// (FlashAttention-3's consumer loop, without its producer warpgroup yet): each warpgroup of a
// block takes 64 query rows of one batch slice (blockIdx.y), a block one or two warpgroups (64
// or 128 queries: two when the rows fill more than one); Q's tile stays in shared memory, the
// keys and values walk through a ring of cp.async stages of [64][D] K and [64][Dv] V tiles in
// wgmma's canonical swizzled layouts. Per tile a warpgroup computes its 64 x 64 scores with
// wgmma (Q and K from shared memory, K-major), applies the program's steps on each score, masks
// keys past the end, runs the online softmax on the accumulators (kernels/cuda/pf_attention_sm90.cuh),
// turns the probabilities into register-form A fragments and adds P * V with wgmma (V read as
// the MN-major B operand). At the end the division by the row sums, and a staged store (16-byte
// chunks where the output's rows allow). D and Dv are padded to 32, 64 or 128 columns (zero
// filled); rows and keys past the ends are zero filled and masked.
#pragma once

#include <string>
#include <vector>

#include "codegen/cuda_emitter.h"
#include "frontend/program.h"

namespace polyfuse {

// The kernel (with its host launcher) called `name` of the statements `statements` of `program`
// (the attention's statements) on `options.arch`, which has wgmma (sm_90a); block, warp and
// macro-MMA options other than the defaults are refused, as emit_attention_kernel refuses them.
EmittedKernel emit_attention_wgmma_kernel(const Program& program, const std::string& name,
                                          const std::vector<std::string>& statements, const GpuOptions& options);

}  // namespace polyfuse
