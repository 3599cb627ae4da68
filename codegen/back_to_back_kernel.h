// The CUDA kernel of a plan's back-to-back matmuls (schedule/back_to_back.h), sm_80 mma.sync:
// one block per block_m rows; the first matmul's k-loop over K (X and W1 tiles through a
// cp.async ring) into f32 accumulators over all the hidden columns; the first epilogue on the
// fragments (codegen/cuda_epilogue.h); its 16-bit result stored into a swizzled shared tile
// (pf::store_frags_to_tile), one barrier; then for each N tile of the second matmul a k-loop
// over the hidden columns with A's fragments from that tile and W2's tiles through the ring,
// the second epilogue and the accumulator store of the outputs. The tiles are the kernel's own
// (BackToBackTiles); `stages` sets the ring's depth, `arch` the target; `split_k` and `mma`
// other than 1 and m16n8k16 are refused.
#pragma once

#include <string>
#include <vector>

#include "codegen/cuda_emitter.h"
#include "frontend/program.h"

namespace polyfuse {

// The kernel (with its host launcher) called `name` of the def `program`'s statements
// `statements` (a back-to-back kernel of its plan), with `options`.
EmittedKernel emit_back_to_back_kernel(const Program& program, const std::string& name,
                                       const std::vector<std::string>& statements, const GpuOptions& options);

}  // namespace polyfuse
