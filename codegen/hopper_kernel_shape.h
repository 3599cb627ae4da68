// Internal to the sm_90a GEMM kernel's generator (hopper_gemm_kernel.cc, hopper_producer.cc):
// what the kernel is made of, the loops over a block's tiles, and the producer warpgroup's branch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/hopper_gemm_kernel.h"
#include "codegen/hopper_stage_operand.h"

namespace polyfuse::hopper_kernel {

// What the kernel is made of, for the generator's parts.
struct KernelShape {
  const HopperGemmTiles& t;
  const HopperTileSchedule& schedule;
  std::int64_t m, n, k_blocks, tiles_m, tiles_n;
  std::int64_t batches;  // C's batch elements (the product of its batch extents; 1 without)
  bool batched;          // C has batch indices: the walk decomposes each tile number into (batch, tile)
  const std::vector<StageOperand>& operands;  // a stage's tiles, in stage order
  std::vector<int> a_of, b_of;               // each matmul's A and B tiles among them
  const StageOperand& a;                     // the first matmul's
  const StageOperand& b;
  const StageOperand& by_tma;          // an operand TMA loads (A when both)
  const StageOperand* by_threads;      // the operand the producer warpgroup copies, or nullptr
  HopperRegisterSplit registers;
  const HopperGather* gather;          // A gathered from a convolution's input, or nullptr
  // Two added matmuls as one k-loop into one accumulator (codegen/added_matmuls.h): the first
  // `chain_k_blocks` k-blocks load the first matmul's tiles, the rest the second's (0: no chain).
  std::int64_t chain_k_blocks = 0;
  std::vector<std::size_t> accumulators;  // the matmuls with an accumulator of their own
};

// `for (tile ...)` over the block's tiles with m0 and n0 (and batch), at `indent`: every tile of
// the block's walk, or (`alternate`) the ping-pong consumer wg's half of them. Batched, tile
// numbers run over batch x tiles: batch tile / (tiles_m tiles_n), then the grouped (m, n) tile.
// `origin` ("m0" or "n0", not clustered): that origin alone, for a loop that reads no other.
std::string tile_loop(const KernelShape& k, const std::string& indent, bool alternate = false, const char* origin = nullptr);

// Clustered: the barrier.cluster every thread passes before it exits, so that no block exits
// while its peer's multicasts or remote arrives may still reach its shared memory.
std::string cluster_exit(const KernelShape& k, const std::string& indent);

// The producer warpgroup's branch: TMA by one thread; beside it the copying threads (an operand
// TMA cannot load, a prologue on the way, an implicit GEMM's gather by cp.async), or the threads
// that apply a prologue where TMA loaded the tile. `type`: the operands' CUDA element type.
std::string producer_branch(const KernelShape& k, const std::string& type);

}  // namespace polyfuse::hopper_kernel
