// The CUDA kernel of a plan's attention (schedule/attention.h) on sm_90a's warpgroup MMAs: each
// consumer warpgroup of a block takes 64 query rows of one batch slice (blockIdx.y), a block one or
// two of them (64 or 128 queries: two when the rows fill more than one); Q's tile stays in shared
// memory, the keys and values walk through a ring of stages of [64][D] K and [64][Dv] V tiles in
// wgmma's canonical swizzled layouts. Where Q, K and V are inputs stored as (b.., rows, columns)
// matrices with 16-byte rows and heads padded to 64 or 128 columns, the block is FlashAttention-3's
// warp-specialised one: a producer warpgroup (setmaxnreg: its registers to the consumers) loads Q
// and every tile by TMA (one thread; a "full" mbarrier a stage counts the bytes) and refills a
// stage once every consumer thread arrived on its "empty" mbarrier (its P·V of the stage retired);
// Q, K and V reach the kernel as tensor maps, so it has no host launcher. Otherwise every thread
// copies the tiles (cp.async) and a block-wide barrier a tile frees a stage. Per tile k a warpgroup
// issues its 64 x 64 scores (wgmma, Q and K from shared memory, K-major) and right after them tile
// k - 1's P * V (wgmma with P in registers, V the MN-major B operand), so that P * V runs while the
// scores do and while the program's steps, the mask of keys past the end and the online softmax
// (kernels/cuda/pf_attention_sm90.cuh) work on them; once P * V retired the output is rescaled and
// tile k's probabilities become the register-form A fragments of the next one (FlashAttention- 3's
// intra-warpgroup overlap). V stays in its stage one tile longer: --stages S copies S - 1 tiles
// ahead (at least one) in a ring of that + 2 stages (the producer fills it as it empties). At the
// end the division by the row sums, and a staged store (16-byte chunks where the output's rows
// allow). D and Dv are padded to 32, 64 or 128 columns (zero filled); rows and keys past the ends
// are zero filled and masked.
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
