// The initial schedule of a fused kernel (DESIGN.md, GPU path step 1; paper §IV, §VII-A):
//
//   domain: every statement
//     mark "kernel"
//       band [b.., m, n]              outer band over the shared output indices, parallel
//         sequence                    (only with more than one statement) one filter each,
//           filter S0: band [k]       in program order; a matmul keeps its reduction band
//           filter S1                 a pointwise epilogue statement is a leaf
//
// This is the shape the paper reaches by hoisting the sequence above the split band
// (§VII-A): the isl scheduler would fuse a pointwise statement into the reduction band.
#pragma once

#include <isl/cpp.h>

#include "schedule/kernel_plan.h"

namespace polyfuse {

// Builds the initial schedule tree of `plan`.
isl::schedule initial_schedule(const KernelPlan& plan);

}  // namespace polyfuse
