// A convolution planned as an implicit GEMM (schedule/implicit_gemm.h) on sm_90a: the
// warp-specialised, persistent TMA + wgmma kernel of codegen/hopper_gemm_kernel.h, whose A is the
// im2col matrix of the input, never in memory. Per k-block, one producer thread loads the filter's
// tile by TMA while the producer warpgroup's 128 threads gather A's 128-byte-swizzled K-major tile
// from the input (pf::sm90::gather_tile: 16-byte chunks of 8 channels at the addresses of the
// input's affine subscripts, zeros for taps in the padding; each thread's rows decomposed once a
// tile, its tap once a k-block, through codegen/im2col_gather.h's functions), fence it for the
// async proxy and arrive on the stage's "full" mbarrier; the consumer warpgroups' wgmma and fused
// epilogues are the GEMM's (bias(k), a residual, activations on O[M][N]).
//
// It applies when the view's GEMM takes the TMA + wgmma loop (choose_main_loop: f16 or bf16,
// the default tile options, ...) with the filter loaded by TMA, the channels are whole 16-byte
// chunks (C a multiple of 8) and the convolution is not grouped; otherwise the sm_80 implicit-GEMM
// kernel runs (codegen/implicit_gemm_kernel.h) and its header says why.
#pragma once

#include "codegen/cuda_emitter.h"
#include "codegen/main_loop_choice.h"
#include "frontend/program.h"
#include "schedule/program_plan.h"

namespace polyfuse {

// The main loop of implicit-GEMM kernel `planned` of `program`: TMA + wgmma with A copied (gathered)
// by threads, or mma.sync and the reason.
MainLoopChoice implicit_gemm_main_loop(const Program& program, const PlannedKernel& planned, const GpuOptions& options);

// The sm_90a kernel of `planned` (`choice` from implicit_gemm_main_loop, TMA + wgmma): B reaches it
// as a tensor map the runtime encodes, the input as a pointer in A's place; no host launcher.
EmittedKernel emit_hopper_implicit_gemm(const Program& program, const PlannedKernel& planned, const GpuOptions& options,
                                        const MainLoopChoice& choice);

}  // namespace polyfuse
