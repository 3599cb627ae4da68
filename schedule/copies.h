// Copy statements (paper §V): data movement between global memory, shared memory and
// registers, added to the tree as extension nodes whose statements the code generator
// prints as kernels/cuda helper calls. For a matmul statement S with operands A, B and
// result C (names are the contract with codegen/):
//
//   S_A_to_shared[buf, a0, a1]     copy A's block tile with origin (a0, a1) (A's own index
//   S_B_to_shared[buf, b0, b1]     order) into shared buffer `buf` — 128-bit, all threads
//   S_wait_shared[buf, pending]    wait until at most `pending` copy groups are in flight
//                                  (the copies into `buf` landed), then a block barrier
//   S_release_shared[buf]          block barrier: every warp is done reading `buf`
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
// Placement, after insert_copies:
//   mark kstep  ← C_to_accumulators before, reduce_split_k then accumulators_to_C after
//     band [floor(k/BK)]
//       A_to_shared, B_to_shared, wait_shared, <mark warp ...>, release_shared
//         ... band [k-slices]
//               A_to_fragments, B_to_fragments, <mark mma ...>
#pragma once

#include <isl/cpp.h>

#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// Prefetching (paper §V-E): when options.stages == 2, marks every matmul's k-step band
// "prefetch" (a mark right below its kstep mark) so that insert_copies double-buffers
// its shared tiles. Identity for stages == 1. Expects contract_to_mma's tree.
isl::schedule prefetch(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& options);

// Adds the copy statements above. Without a prefetch mark: one shared buffer (buf = 0),
// the copies of k-step i complete before its MMAs. Below a prefetch mark: the copies of
// k-step i+1 go to buffer (i+1) mod 2 and are issued before the MMAs of k-step i, which
// read buffer i mod 2 (with cp.async they overlap), and a prologue before the k-step
// loop fills buffer 0. Expects prefetch's tree.
isl::schedule insert_copies(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& options);

// Names of the copy statements of matmul statement `s` (see the table above).
std::string copy_statement_name(const std::string& s, const std::string& what);

}  // namespace polyfuse
