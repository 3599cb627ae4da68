// The extension maps of the copy statements of one matmul (see copies.h for their
// names and meaning), for a single shared buffer or a ring of shared stages. Internal to the
// copy passes (copies.cc, prefetch.cc).
#pragma once

#include <isl/cpp.h>

#include "schedule/footprint.h"
#include "schedule/copies.h"
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

// How copies are timed, by the number of shared stages:
//   1     a single buffer: the copies of k-step i, a wait for none pending and a barrier,
//         the MMAs, a release barrier (nothing overlaps)
//   S > 1 a ring of S buffers (CUTLASS 2.x's multistage main loop): a prologue commits the
//         copies of k-steps 0 .. S-2 into buffers 0 .. S-2, one group each; k-step i waits
//         until its group landed (at most S-2 pending), one barrier, then issues the copies
//         of k-step i+S-1 into buffer (i+S-1) mod S — the one k-step i-1 read — and commits
//         them (an empty group past K, so the count stays right), then its MMAs read buffer
//         i mod S. One barrier after the k-step loop frees shared memory for the epilogue.

// Matmuls of one k-loop (kernel_plan.h's MatmulGroup): the one that `leads` copies A and
// commits and waits for the group's copies; the others copy only their B.
//
// wait_shared, A_to_shared, B_to_shared and commit_shared under the k-step band; the wait
// carries the origin of the `landed` operand's tile (copies.h's landed_prologue).
isl::union_map block_copy_maps(const CopyTiles& tiles, const std::string& s, int stages, bool leads,
                               LandedPrologue landed);
// The ring's prologue: A_to_shared and B_to_shared of k-steps 0 .. stages-2 (those inside
// K) into buffers 0 .. stages-2, and commit_shared of each, before the k-step loop.
isl::union_map prologue_copy_maps(const CopyTiles& tiles, const std::string& s, int stages, bool leads);
// release_shared under the k-step band (a single buffer).
isl::union_map release_map(const CopyTiles& tiles, const std::string& s);
// drain_shared after the k-step loop (a ring).
isl::union_map drain_map(const CopyTiles& tiles, const std::string& s);
// A_to_fragments and B_to_fragments under the k-slice band.
isl::union_map fragment_maps(const CopyTiles& tiles, const std::string& s, int stages, bool leads);

}  // namespace polyfuse
