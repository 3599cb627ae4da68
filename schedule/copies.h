// Copy statements (paper §V): data movement between global memory, shared memory and
// registers, added to the tree as extension nodes whose statements the code generator
// prints as kernels/cuda helper calls. For a matmul statement S with operands A, B and
// result C (names are the contract with codegen/):
//
//   S_A_to_shared[buf, a0, a1]     copy A's block tile with origin (a0, a1) (A's own index
//   S_B_to_shared[buf, b0, b1]     order) into shared buffer `buf` — 128-bit, all threads
//   S_commit_shared[j]             close the cp.async group of k-step j's copies (an empty
//                                  group when k-step j is past K)
//   S_wait_shared[buf, pending]    wait until at most `pending` copy groups are in flight
//                                  (the copies into `buf` landed), then a block barrier
//   S_wait_shared[buf, pending, o0, o1]   the same for a k-loop whose operand tile lands
//                                  before its prologue (landed_prologue): o is the origin of
//                                  that operand's tile in `buf`, which each thread maps in
//                                  place between the wait and the barrier
//   S_release_shared[buf]          (one stage) block barrier: every warp is done reading `buf`
//   S_drain_shared[]               (a ring) block barrier after the k-step loop: every warp
//                                  is done reading the ring before shared memory is reused
//                                  (not after the last of several matmuls: nothing reuses it)
//   S_A_to_fragments[buf, r, c]    load the warp's A fragments for one k-slice from shared
//   S_B_to_fragments[buf, r, c]    buffer `buf`, (r, c) relative to the block tile
//   S_C_to_accumulators[c0, c1]    (`+=` only) load C's block tile into the accumulators
//   S_accumulators_to_C[c0, c1]    store the accumulators to C's block tile (C live-out)
//   S_reduce_split_k[c0, c1]       (split-K with an epilogue) add the k-splits' accumulators
//                                  into those of split 0, which alone runs the epilogue
//
// For a pointwise epilogue statement E writing a live-out tensor D, after E's subtree:
//   E_fragments_to_D[d0, d1]       store E's result fragments to D's block tile
//
// Placement, after insert_copies, with one stage:
//   mark kstep  ← C_to_accumulators before, reduce_split_k then accumulators_to_C after
//     band [floor(k/BK)]
//       A_to_shared, B_to_shared, commit_shared, wait_shared, <mark warp ...>, release_shared
//         ... band [k-slices]
//               A_to_fragments, B_to_fragments, <mark mma ...>
// With a ring of S stages (k-step i in buffer i mod S):
//   mark pipeline_prologue                  (before the kstep mark)
//     band [j = 0 .. S-2]: A_to_shared, B_to_shared of k-step j (inside K), commit_shared[j]
//   mark kstep  ← drain_shared right after it
//     mark prefetch
//       band [floor(k/BK)]
//         wait_shared[i mod S, S-2], A_to_shared, B_to_shared of k-step i+S-1 (inside K)
//         into buffer (i+S-1) mod S, commit_shared[i+S-1], <mark warp ...>
#pragma once

#include <isl/cpp.h>

#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// Prefetching (paper §V-E): when options.stages > 1, marks every matmul's k-step band
// "prefetch" (a mark right below its kstep mark) so that insert_copies makes its shared
// tiles a ring of options.stages buffers. Identity for stages == 1. Expects
// contract_to_mma's tree.
isl::schedule prefetch(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& options);

// Adds the copy statements above. Without a prefetch mark: one shared buffer (buf = 0),
// the copies of k-step i complete before its MMAs. Below a prefetch mark, a ring of
// S = options.stages buffers (CUTLASS 2.x's multistage loop, copy_maps.h): a prologue
// commits the copies of k-steps 0..S-2; k-step i waits for its own group (S-2 pending),
// passes one barrier, issues the copies of k-step i+S-1 into the buffer k-step i-1 read
// (with cp.async they overlap the MMAs) and reads buffer i mod S. Expects prefetch's tree.
isl::schedule insert_copies(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& options);

// Which operand of a k-loop takes its prologue in shared memory: copied by cp.async like an
// operand without one, and after the ring's wait each thread applies the prologue in place to
// the chunks it copied, before the barrier that publishes them (kernels/cuda map_tile_shared).
// No staging registers live through the main loop and no global load is waited on inside it
// (CUTLASS 2.x's multistage loop with a transform of the landed stage). It applies to a k-loop
// of one matmul with 16-bit operands and a prologue on exactly one of them; otherwise a
// prologue runs between a global load into registers and the shared store (paper §VII-C).
enum class LandedPrologue { none, a, b };
LandedPrologue landed_prologue(const MatmulGroup& group);

// Names of the copy statements of matmul statement `s` (see the table above).
std::string copy_statement_name(const std::string& s, const std::string& what);

}  // namespace polyfuse
