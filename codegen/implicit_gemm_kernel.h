// The CUDA kernel of a convolution planned as an implicit GEMM (schedule/implicit_gemm.h), sm_80
// mma.sync (also on sm_90, and on sm_90a where the TMA + wgmma kernel of
// codegen/hopper_implicit_gemm.h does not apply: its header's main-loop line says why). One block per 64 x 64 tile of
// the output O[M][N] (M the output pixels, N the output channels), four warps of 32 x 32; a k-loop
// over K = taps x channels in steps of 32 through a cp.async ring of `stages` shared stages. The
// A tile's copy gathers (pf::cp_async_gather_tile in kernels/cuda/pf_gather_copy.cuh): a thread
// copies the same rows at every k-step, so a generated `<I>_row(row)` maps each of its GEMM rows
// to the output pixel once, before the k-loop (the input's coordinates at tap 0, their offset),
// `<I>_tap(col)` its column to the tap and channel once per k-step, and `<I>_at(row, tap)` gives
// the address of the 8 channels there, from the input's affine subscripts, or nullptr for a tap
// outside the input (zero-filled by cp.async's source size 0). Channels that are not whole
// 16-byte chunks (C = 3) are gathered element by element (pf::gather_tile_elements: loads and
// shared stores, `<I>_tap` per column). B is the filter,
// copied like any GEMM operand. The epilogues after the convolution run on the accumulator
// fragments as for a GEMM (codegen/cuda_epilogue.h), only the live-outs are stored. f32 operands
// run on TF32 (or 3xTF32, `f32_matmul`) with pf_mma_tf32.cuh's tiles, loads and macro-MMA.
// `split_k` other than 1, `mma` other than m16n8k16 and user-chosen block or warp tiles are refused.
#pragma once

#include "codegen/cuda_emitter.h"
#include "frontend/program.h"
#include "schedule/program_plan.h"

namespace polyfuse {

// The kernel (with its host launcher) of `kernel`, an implicit_gemm kernel of a plan of `program`.
// On sm_90a, the TMA + wgmma kernel where implicit_gemm_main_loop takes it.
EmittedKernel emit_implicit_gemm_kernel(const Program& program, const PlannedKernel& kernel, const GpuOptions& options);

}  // namespace polyfuse
