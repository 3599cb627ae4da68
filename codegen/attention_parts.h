// The parts the two attention kernels share (codegen/attention_kernel.h: mma.sync, every arch;
// codegen/attention_wgmma_kernel.h: wgmma, sm_90a): where a block finds its batch slice of each
// tensor, the code of the program's steps on one score, and the final division.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/cuda_emitter.h"
#include "codegen/mma_sync_loop.h"
#include "frontend/program.h"
#include "schedule/attention.h"

namespace polyfuse {

// A tensor's batch slice: the expression of its first element, and the stride of its rows.
struct AttentionSlice {
  std::string at;
  std::int64_t ld = 0;
};

// What a block of batch slice `slice` (a kernel variable: blockIdx.y) reads and writes.
struct AttentionMemory {
  std::string batch_lines;              // `batch_i` from `slice`: empty when nothing needs them
  std::vector<std::string> batch_vars;  // batch_0 .. (the scores' batch indices, outermost first)
  AttentionSlice q, k, v, out;          // `slice` times the matrix in the standard layout,
                                        // else the batch indices times their strides
};
AttentionMemory attention_memory(const Program& program, const Attention& attention);

// The lines that take `x` (a score's sum, a float) through the sum's constant factor and the
// program's steps on the score; they read `query`, `key` and the batch variables, and another
// tensor's element only inside the tensors.
std::string score_steps_code(const Program& program, const Attention& attention, const std::vector<std::string>& batch_vars);

// The output's value from its sum `out` and the row's sum `sum`, as the program divides.
std::string attention_quotient(const Program& program, const Attention& attention, const std::string& out,
                               const std::string& sum);

// Columns D (or Dv) padded for a shared tile: 32, 64 or 128.
int attention_padded(std::int64_t cols);

constexpr int attention_key_tile = 64;  // keys of a tile

// The tiles of an attention kernel whose blocks of `threads` threads take `block_rows` queries.
struct AttentionTiles {
  int block_rows = 0, threads = 0;
  int dp = 0, dvp = 0;  // D and Dv padded
  int q_bytes = 0, k_bytes = 0, v_bytes = 0, stage_bytes = 0;
  std::int64_t tiles = 0;  // of keys
  int stages = 0;          // the ring's (--stages; one tile of keys needs one)
  // The bounds a tile's copy checks (pf::Check): Q's, K's, V's tiles and O's rows.
  std::string q_check, k_check, v_check, o_check;
};
AttentionTiles attention_tiles(const Attention& attention, const GpuOptions& options, int block_rows, int threads);

// The launch of kernel `name`: a block per `tiles.block_rows` queries of a batch slice, `shared`
// bytes of dynamic shared memory, refused beyond the arch's limit (`parts` names what the bytes
// hold after the Q tile and the stages); `options` the kernel's note.
LaunchMetadata attention_launch(const Program& program, const Attention& attention, const AttentionTiles& tiles,
                                const std::string& name, Arch arch, int shared, const std::string& parts,
                                const std::string& options);

// The block's batch slice (`slice`, from blockIdx.y), its batch indices where needed, and the
// pointers q_base, k_base, v_base (of `type`) to the operands' slices (only with
// `operand_pointers`: not where Q, K and V come as tensor maps).
std::string attention_slice_lines(const AttentionMemory& memory, const std::string& type, bool operand_pointers = true);

// The kernel's head: what it computes, its launch, and its signature line (the body follows).
// `min_blocks` > 0: __launch_bounds__'s blocks per SM too (a register count at the entry, which
// setmaxnreg needs).
std::string attention_kernel_head(const Program& program, const Attention& attention, const LaunchMetadata& launch,
                                  int min_blocks = 0);

// The copies of key tile `tile` (an expression) into stage `stage` of the ring after Q's tile at
// `smem`: K's with `k_copy`, V's with `v_copy` (copy functions with their template arguments,
// called as (dst, src, ld, rows_valid, cols_valid, thread)).
std::string attention_stage_copies(const Attention& attention, const AttentionMemory& memory, const AttentionTiles& tiles,
                                   const std::string& k_copy, const std::string& v_copy, const std::string& tile,
                                   const std::string& stage);

// With a causal mask that leaves tiles out: the declaration of `key_tiles`, the tiles up to the
// block's last query's last key; else "" (every tile is walked).
std::string attention_causal_tiles(const Attention& attention, const AttentionTiles& tiles);

// The walk over the key tiles (k_step) through the cp.async ring (k_loop): every tile, or
// `key_tiles` of them (attention_causal_tiles).
std::string attention_key_walk(const Attention& attention, const AttentionTiles& tiles, const StepText& copies,
                               const StageText& body);

// The online softmax of a tile (`score`, `rows`, `out`), with the statements it stands for.
std::string attention_softmax_step(const Program& program, const Attention& attention);

// The end: the rows' whole sums, and the division of the `count` accumulators `out.v`.
std::string attention_division(const Program& program, const Attention& attention, int count);

}  // namespace polyfuse
