// The producer side of the sm_90a attention kernel (codegen/attention_wgmma_kernel.h) where Q, K
// and V come by TMA: which operands the runtime can pass as tensor maps, and the block's start —
// the ring's mbarriers and the producer warpgroup that fills it (FlashAttention-3's warp
// specialisation).
#pragma once

#include <string>
#include <vector>

#include "codegen/attention_parts.h"
#include "frontend/program.h"
#include "schedule/attention.h"

namespace polyfuse {

// Q's, K's and V's tiles by TMA where the runtime can pass all three as tensor maps: inputs stored
// as (b.., rows, columns) matrices (its maps take the last two extents, the leading ones
// linearised: FlashAttention's (B, S, H, D) keeps the threads' copies), whose rows the driver's
// rules accept, heads padded to 64 or 128 (128-byte swizzle), read by nothing else in the kernel.
// `*_batch`: the matrix of the block's slice in each map ("" for a 2-d map).
struct OperandMaps {
  std::string refusal;  // why the threads copy them, or ""
  std::string q_batch, k_batch, v_batch;
};

OperandMaps operand_maps(const Program& program, const Attention& attention, const std::vector<std::string>& statements,
                         const AttentionTiles& tiles);

// The block's start with `maps`: the mbarriers from byte `barriers_at` of the dynamic shared memory
// (full and empty a stage, Q's, the consumers' barrier: `full`, `empty`, `q_full`,
// `consumers_bar`), their initialisation, and the producer warpgroup (warpgroup 0: setmaxnreg
// down to 40, then one thread loads the consumers' Q tiles and the `count` key tiles of K and V,
// each once the consumers released its stage's previous tile; it returns). `row0` and `slice`
// (with the batch indices the maps need) are declared before it.
std::string attention_producer(const Attention& attention, const AttentionTiles& tiles, const OperandMaps& maps,
                               int warpgroups, const std::string& count, int barriers_at);

}  // namespace polyfuse
