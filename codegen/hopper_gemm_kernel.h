// The sm_90a kernel of a plain GEMM C = A * B (main_loop_choice.h: MainLoop::tma_wgmma), written
// as ThunderKittens-style CUDA over kernels/cuda's Hopper layer (pf::sm90): warp-specialised and
// persistent, in CUTLASS 3's three parts — main loop, epilogue, tile scheduler.
//
//   * Warpgroup 0 is the producer: it gives registers back (setmaxnreg.dec) and one of its
//     threads issues the TMA loads of A's and B's k-blocks into an S-stage ring of 128-byte-
//     swizzled tiles completing on "full" mbarriers (an operand TMA cannot load is copied by all
//     128 producer threads, fenced for the async proxy, arriving on "full" too). Before refilling
//     a stage it waits on the stage's "empty" mbarrier.
//   * Warpgroups 1 .. C are the consumers (C = 1 or 2; setmaxnreg.inc): per k-block they wait on
//     a stage, issue one k-block of wgmma.mma_async from shared-memory descriptors and release
//     the previous k-block's stage on "empty" once wgmma.wait_group retired its reads (every
//     consumer thread of the stage's tile arrives: a wait retires only its own warp's share).
//     Two schedules (ConsumerSchedule, --consumer-schedule; the default in hopper_default_consumers):
//       - cooperative: the C consumers compute one BM x BN tile together (BM = 64 C; consumer g
//         rows 64 g .. 64 g + 63 of it, one B tile read by both);
//       - ping-pong: two consumers on alternate 64 x BN tiles of the block's walk (consumer g
//         the block's tiles g, g + 2, ...), so one runs its epilogue while the other's main loop
//         keeps the tensor cores busy; each stage then feeds one consumer. The main loops take
//         turns (an "order" mbarrier per consumer, arrived on by the other at the end of its main
//         loop): besides the alternation, this keeps a consumer from waiting on a stage's fill
//         two phases ahead of the last one observed, where a parity wait cannot tell them apart.
//   * Tile scheduler: each block walks the output tiles tile = blockIdx.x, + gridDim.x, ... in
//     grouped order (pf_tile_order.cuh's grouped_tile_at: groups of `group` tile rows); the grid is
//     min(SMs, tiles) blocks, chosen at launch (LaunchMetadata::persistent_tiles). Producer and
//     consumers count the k-blocks over all tiles (`it`): the ring's stage it % S and the
//     mbarrier parity (it / S) & 1 carry from one tile to the next. Batched (C(b.., m, n)), the
//     walk numbers batch x tiles: tile t is batch element t / (tiles per element), the
//     linearised batch coordinate `batch` that the batched operands' 3-d TMA loads, the copying
//     threads' source and the epilogue's addresses carry.
//   * Two matmuls over the same tiles and K (SwiGLU) run in one k-loop: a stage holds every
//     operand's tile (a shared A once), each consumer one accumulator per matmul (BN = 64: the
//     single GEMM's registers), and the epilogue reads both staged accumulators. Two whose
//     results are added (add_gemms: the plan folded by codegen/added_matmuls.h, the second
//     matmul accumulating into the first) run chained: the single GEMM's tiles and one
//     accumulator, the first's k-blocks and then the second's through the same stage slots.
//   * Epilogue: each consumer warpgroup stages its f32 accumulators in its own shared-memory
//     area past the ring (the producer may already fill the ring for the next tile), ordered by a
//     warpgroup barrier on an mbarrier (no block-wide barrier after the mbarriers' init), then
//     stores C with bounds checks or runs the fused pointwise epilogue per element.
//
// The wgmma issue is straight-line (one k-block of BK / 16 instructions, descriptors from
// constant tile addresses before wgmma.fence), so ptxas does not serialise it (C7510/C7511); the
// kernel carries __launch_bounds__(threads, 1) so that ptxas honours setmaxnreg (C7508).
#pragma once

#include <cstdint>
#include <string>

#include "codegen/main_loop_choice.h"
#include "frontend/program.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// The Hopper kernel's tiles: cooperative, bm / 64 consumer warpgroups (one or two) compute BM x
// BN of C per tile, consumer g rows 64 g .. 64 g + 63 of it, with one B tile shared by both;
// ping-pong, two consumers take alternate 64 x BN tiles. One producer warpgroup before them.
struct HopperGemmTiles {
  int bm = 64, bn = 128, bk = 64;  // elements; a k-block is one 128-byte row of a swizzle atom
  int element_bytes = 2;           // 2: f16/bf16 (wgmma m64nBNk16), 1: FP8 (m64nBNk32, bk = 128),
                                   // 4: f32 read as TF32 (m64nBNk8, bk = 32)
  int stages = 4;                  // shared-memory ring (2..6)
  ConsumerSchedule schedule = ConsumerSchedule::cooperative;
  // Matmuls over the same output tiles and k range in one k-loop (1 or 2): each consumer holds
  // one 64 x bn accumulator per matmul, and a stage holds a_tiles A tiles (1 when the matmuls
  // share A, as SwiGLU's do) and one B tile per matmul.
  int matmuls = 1, a_tiles = 1;
  // An operand's prologue applied by the producer's threads where TMA loaded it (OperandCopy::
  // tma_prologue): the TMA loads complete on a third mbarrier per stage, "loaded".
  bool prologue_in_place = false;

  bool fp8() const { return element_bytes == 1; }
  bool tf32() const { return element_bytes == 4; }
  int box_inner() const { return 128 / element_bytes; }  // a TMA box's row: 128 bytes
  int wgmma_k() const { return 32 / element_bytes; }     // k of one wgmma: 32 bytes of a row
  int k_steps() const { return bk / wgmma_k(); }         // wgmma per k-block

  bool pingpong() const { return schedule == ConsumerSchedule::pingpong; }
  int tile_consumers() const { return bm / 64; }  // warpgroups on one tile
  int consumers() const { return pingpong() ? 2 : tile_consumers(); }  // warpgroups
  int threads() const { return 128 * (consumers() + 1); }  // the producer warpgroup and the consumers
  int a_bytes() const { return bm * bk * element_bytes; }  // one A tile (128-byte swizzle, K- or M-major)
  int b_bytes() const { return bk * bn * element_bytes; }  // one B tile (K- or N-major)
  int stage_bytes() const { return a_tiles * a_bytes() + matmuls * b_bytes(); }  // a multiple of 1024
  int ring_bytes() const { return stages * stage_bytes(); }
  // Each consumer warpgroup stages its 64 x bn f32 accumulators (one such area per matmul)
  // after the ring, in swizzled 16-byte chunks (pf::sm90::wg_staged_offset).
  int acc_staging_floats() const { return 64 * bn; }
  int wg_staging_floats() const { return matmuls * acc_staging_floats(); }
  int staging_bytes() const { return consumers() * wg_staging_floats() * 4; }
  int barrier_offset() const { return ring_bytes() + staging_bytes(); }
  // + the stages' full and empty (and loaded) mbarriers, one per consumer warpgroup for its
  // epilogue, and (ping-pong) one per consumer for its turn at the main loop
  int stage_barriers() const { return prologue_in_place ? 3 : 2; }
  int shared_bytes() const {
    return barrier_offset() + 8 * stage_barriers() * stages + 8 * consumers() + (pingpong() ? 16 : 0);
  }
};

// The register counts the warpgroups ask for with setmaxnreg (PTX ISA 9.7.17.1), within the
// registers the block's 128 (consumers + 1) threads entered with. The producer keeps 40 when one
// thread issues TMA, 88 when its warpgroup copies an operand (loads, the prologue, a gather) or
// applies a prologue to a tile TMA loaded; the
// consumers take 232 (their 64 x 128 f32 accumulators are 64 registers), 208 when two consumers
// share the pool with a copying producer.
struct HopperRegisterSplit {
  int producer = 40, consumer = 232;
};
// The per-thread registers ptxas gives a block of `warpgroups` x 128 threads under
// __launch_bounds__(threads, 1) at most: 168 for 384, 248 for 256 (in units of 8, at most 255).
int hopper_launch_registers(int warpgroups);
// The producer's and consumers' setmaxnreg counts; their sum fits the block's launch registers.
HopperRegisterSplit hopper_register_split(const HopperGemmTiles& tiles, bool producer_threads_work);

// The persistent tile scheduler: output tiles in groups of `group` tile rows (along M), and the
// thread-block cluster (--cluster MxN): 1x1 (none), 2x1 (two blocks on vertically adjacent
// tiles share each B tile) or 1x2 (horizontally adjacent tiles share each A tile). Clustered,
// the blocks walk cluster tiles (cluster_m x cluster_n output tiles) in the same groups, the
// grid is a multiple of 2 blocks, each block of a cluster loads half of every shared tile by
// TMA multicast into both blocks (CUTLASS 3's scheme), and a stage is refilled only once the
// consumers of both blocks released it (remote mbarrier arrives). A block of a cluster tile
// past the tensor's edge (M or N not a multiple of the cluster tile) takes part all the same:
// its TMA boxes are zero-filled, its stores masked.
struct HopperTileSchedule {
  int group = 8;  // GpuOptions::group when set (--group)
  int cluster_m = 1, cluster_n = 1;
  int cluster_blocks() const { return cluster_m * cluster_n; }
  bool clustered() const { return cluster_blocks() > 1; }
};

// The rows of the TMA box of operand 'A' or 'B' (k_contiguous: stored with K contiguous) of a
// tile rows x atoms boxes: the block's rows, or half of them when the cluster shares the
// operand and its tile is one box wide (each block of the cluster loads half of the rows).
int hopper_box_rows(const HopperGemmTiles& tiles, const HopperTileSchedule& schedule, char operand, bool k_contiguous);

// The consumers' schedule when the user chose none: cooperative, whose 128-row tiles read each B
// tile once for both consumers. On an H200 (2026-11-30, f16 4096^3, the autotuner's timings) it
// beat ping-pong in every kernel timed, the fused epilogues too, which ping-pong was meant to
// hide: GEMM 0.227 against 0.281 ms, GEMM + bias + ReLU 0.283 against 0.299, relu_gemm 1.03
// against 1.21. The autotuner still times both.
ConsumerSchedule hopper_default_consumers();

// The tiles for an M x N x K GEMM on sm_90a: cooperative, blocks of 128 x 128 x 64 (two consumer
// warpgroups) when M > 64, else 64 x 128 x 64 (one); ping-pong, tiles of 64 x 128 x 64 for two
// consumers. As many stages as the 227 KB of shared memory per block hold beside the epilogue
// staging, 2 to 6 (128 x 128 x 64: 32 KB a stage and 66 KB of staging, 5 stages; ping-pong: 24 KB
// a stage, 6). FP8 operands (element_bytes 1): k-blocks of 128 elements, the same bytes; f32
// ones read as TF32 (element_bytes 4): k-blocks of 32 elements, the same bytes again.
// `matmuls` (1 or 2) matmuls in one k-loop, with `a_tiles` distinct A tiles: BN = 128 / matmuls,
// so that a consumer thread's accumulators stay at matmuls x BN / 2 = 64 f32 registers (the
// single GEMM's, under the same 232 / 216 register split, no spills) and the epilogue staging
// at the single GEMM's bytes; two matmuls sharing A: 128 x 64 x 64 blocks, 32 KB a stage, 4
// stages (ping-pong 24 KB, 6); two with their own A: 48 KB, 3 (ping-pong 32 KB, 4).
// `row_span` > 0 (one matmul whose row chain runs in the epilogue: schedule/fused_row_chain.h):
// BN = the row rounded up to a power of two, at least 64 and at most 256, so that one tile spans
// the row (128 x 256 x 64: 48 KB a stage and 128 KB of staging, 2 stages).
HopperGemmTiles hopper_gemm_tiles(std::int64_t m, ConsumerSchedule schedule = ConsumerSchedule::cooperative,
                                  int element_bytes = 2, int matmuls = 1, int a_tiles = 1, std::int64_t row_span = 0);

// The output tiles of an M x N GEMM: ceil(M / bm) x ceil(N / bn).
std::int64_t hopper_tile_count(const HopperGemmTiles& tiles, std::int64_t m, std::int64_t n);
// The blocks a persistent launch walks tiles with: the tiles, or clustered, 2 blocks for each
// cluster tile (ceil(tiles_m / cluster_m) x ceil(tiles_n / cluster_n) of them).
std::int64_t hopper_walk_blocks(const HopperGemmTiles& tiles, const HopperTileSchedule& schedule, std::int64_t m,
                                std::int64_t n);

// "warp-specialised, cooperative: a producer warpgroup (TMA, 40 registers) and two consumer
// warpgroups (232 registers) on each 128 x 128 tile; persistent: 6 tiles in groups of 8 tile
// rows over min(SMs, 6) blocks" — what --emit=config and the kernel's header say (`batches`:
// the tiles of that many batch elements, "6 tiles (3 batch elements of 2)").
std::string hopper_schedule_text(const HopperGemmTiles& tiles, const HopperTileSchedule& schedule, const MainLoopChoice& choice,
                                 std::int64_t m, std::int64_t n, std::int64_t batches = 1);

// The kernel `extern "C" __global__ void <def>(A_map, B_map, C)` of the plain GEMM of `plan`
// (one matmul — or tiles.matmuls = 2 of them over the same tiles and K, every operand by TMA,
// each a map parameter —, batched or not, f16/bf16 A(m, k) or A(k, m), B(k, n) or B(n, k), or FP8 (e4m3/e5m2) A(m, k) and
// B(n, k) both by TMA with tiles.element_bytes 1, or f32 ones read as TF32 the same way with
// tiles.element_bytes 4, sizes bound): a 1-d grid of any
// number of blocks (the runtime launches min(SMs, batches x hopper_tile_count)), tiles.threads() threads,
// tiles.shared_bytes() of dynamic shared memory; A_map and B_map are 2-d tensor maps of the
// tensors as stored (dimension 0 the contiguous one) with boxes of 128 bytes (64 16-bit elements,
// 128 FP8 ones, 32 f32 ones) by the block's extent of the other dimension (A(m, k): {64, bm}, A(k, m): {64, bk},
// B(k, n): {64, bk}, B(n, k): {64, bn}; FP8: {128, bm}, {128, bn}),
// 128-byte swizzle (runtime/tma builds them); wgmma reads k-contiguous tiles K-major, the others
// M/N-major. An operand that `choice` copies by threads is a plain pointer instead (`const T* B`):
// every producer thread writes its share of the tile TMA would have written
// (pf_thread_tile_sm90.cuh), fences it for the async proxy and arrives on the stage's "full"
// mbarrier (then initialised to 129 arrivals).
// With `gather` (an implicit GEMM, codegen/hopper_implicit_gemm.h) A is not a tensor: the
// producer threads gather each K-major A tile from the convolution's input (pf::sm90::gather_tile
// through the functions of codegen/im2col_gather.h), which replaces A among the parameters.
struct HopperGather {
  std::string input;      // the tensor the gather reads: a plain pointer parameter in A's place
  std::string functions;  // <input>_row, <input>_tap and <input>_at (gather_functions), at the producer's top
};
std::string hopper_gemm_kernel(const Program& program, const KernelPlan& plan, const MainLoopChoice& choice,
                               const HopperGemmTiles& tiles, const HopperTileSchedule& schedule = {},
                               const HopperGather* gather = nullptr);

}  // namespace polyfuse
