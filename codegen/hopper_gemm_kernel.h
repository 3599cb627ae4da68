// The sm_90a main loop of a plain GEMM C = A * B (main_loop_choice.h: MainLoop::tma_wgmma),
// written as ThunderKittens-style CUDA over kernels/cuda's Hopper layer (pf::sm90): thread 0
// issues TMA loads of A's and B's k-blocks into an S-stage ring of 128-byte-swizzled tiles
// that complete on "full" mbarriers (or of one of them, the threads copying the other); each
// consumer warpgroup (one or two, 128 threads each) waits on a stage, issues one k-block of
// wgmma.mma_async from shared-memory descriptors (its 64 rows of A, all of B) and releases the
// stage of the previous k-block on its "empty" mbarrier once wgmma.wait_group retired its
// reads (every consumer thread arrives: a wait retires only the own warp's share). The f32
// accumulators are stored with bounds checks, staged in the ring's shared memory. The model is
// tests/kernels_cuda's hand-written hopper_gemm_* kernel.
//
// The wgmma issue is straight-line (one k-block of BK / 16 instructions, descriptors from
// constant tile addresses before wgmma.fence), so ptxas does not serialise it (C7510/C7511).
#pragma once

#include <cstdint>
#include <string>

#include "codegen/main_loop_choice.h"
#include "frontend/program.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// The Hopper main loop's tiles: bm / 64 consumer warpgroups (one or two) compute BM x BN of C
// per block, warpgroup g rows 64 g .. 64 g + 63 of it, with one B tile shared by both.
struct HopperGemmTiles {
  int bm = 64, bn = 128, bk = 64;  // wgmma m64nBNk16, BK / 16 k-steps per k-block
  int stages = 4;                  // shared-memory ring (2..6)

  int consumers() const { return bm / 64; }      // warpgroups
  int threads() const { return 128 * consumers(); }
  int a_bytes() const { return bm * bk * 2; }   // one A tile (128-byte swizzle, K- or M-major)
  int b_bytes() const { return bk * bn * 2; }   // one B tile (K- or N-major)
  int stage_bytes() const { return a_bytes() + b_bytes(); }  // a multiple of 1024
  int barrier_offset() const { return stages * stage_bytes(); }
  int shared_bytes() const { return barrier_offset() + 16 * stages; }  // + full and empty mbarriers
  // The epilogue stages each warpgroup's 64 x (bn + 4) f32 accumulators in the ring's memory.
  int staging_bytes() const { return consumers() * 64 * (bn + 4) * 4; }
};

// The tiles for an M x N x K GEMM on sm_90a (the rule, documented in the README): blocks of
// 128 x 128 x 64 (two consumer warpgroups) when M > 64, else 64 x 128 x 64 (one); as many
// stages as the 227 KB of shared memory per block hold, 2 to 6 (128 x 128 x 64: 32 KB a
// stage, 6 stages).
HopperGemmTiles hopper_gemm_tiles(std::int64_t m);

// The kernel `extern "C" __global__ void <def>(A_map, B_map, C)` of the plain GEMM of `plan`
// (one matmul, f16/bf16 A(m, k) or A(k, m), B(k, n) or B(n, k), sizes bound): its grid is
// (ceil(N / bn), ceil(M / bm)), tiles.threads() threads, tiles.shared_bytes() of dynamic shared memory;
// A_map and B_map are 2-d tensor maps of the tensors as stored (dimension 0 the contiguous
// one) with boxes of 64 by the block's extent of the other dimension (A(m, k): {64, bm},
// A(k, m): {64, bk}, B(k, n): {64, bk}, B(n, k): {64, bn}), 128-byte swizzle (runtime/tma
// builds them); wgmma reads k-contiguous tiles K-major, the others M/N-major. An operand that
// `choice` copies by threads is a plain pointer instead (`const T* B`): every thread writes its
// share of the tile TMA would have written (pf_thread_tile_sm90.cuh), fences it for the async
// proxy and arrives on the stage's "full" mbarrier (then initialised to 129 arrivals).
std::string hopper_gemm_kernel(const Program& program, const KernelPlan& plan, const MainLoopChoice& choice,
                               const HopperGemmTiles& tiles);

}  // namespace polyfuse
