// The extension maps of the copy statements of one matmul (see copies.h for their
// names and meaning), for a single shared buffer or double buffering. Internal to the
// copy passes (copies.cc, prefetch.cc).
#pragma once

#include <isl/cpp.h>

#include "schedule/footprint.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// The nodes of one matmul's subtree the copy passes attach to.
struct MatmulNodes {
  isl::schedule_node kstep_mark;    // mark kstep (above the k-step band)
  isl::schedule_node below_kstep;   // the warp mark, child of the k-step band's subtree
  isl::schedule_node below_kslice;  // the mma mark, below the k-slice band
};

// Finds the nodes of `mm` in `schedule`.
MatmulNodes matmul_nodes(const isl::schedule& schedule, const MatmulStage& mm);

// The data tiles of one matmul: A and B per block k-step and per warp k-slice, C per block.
struct CopyTiles {
  DataTile a_block, b_block, a_warp, b_warp, c_block;
  isl::set kstep_points;  // the prefix points (b.., by, bx, ks) of the k-step loop
};

// Computes the tiles at `nodes` (all of one tree).
CopyTiles copy_tiles(const MatmulNodes& nodes, const KernelPlan& plan, const MatmulStage& mm);

// How copies are timed: a single buffer (copies for k-step i, wait for none pending) or
// double buffering (copies for k-step i+1 into buffer (i+1) mod 2; wait lets those pend).
enum class CopyTiming { single_buffer, double_buffer };

// A_to_shared, B_to_shared and wait_shared under the k-step band.
isl::union_map block_copy_maps(const CopyTiles& tiles, const std::string& s, CopyTiming timing);
// A_to_shared and B_to_shared of k-step 0 into buffer 0, before the k-step loop.
isl::union_map prologue_copy_maps(const CopyTiles& tiles, const std::string& s);
// release_shared under the k-step band.
isl::union_map release_map(const CopyTiles& tiles, const std::string& s, CopyTiming timing);
// A_to_fragments and B_to_fragments under the k-slice band.
isl::union_map fragment_maps(const CopyTiles& tiles, const std::string& s, CopyTiming timing);

}  // namespace polyfuse
