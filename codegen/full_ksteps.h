// Full k-steps keep the fast path too. When K is not a multiple of the block's k, the last
// k-step copies a partial tile (columns of A, rows of B cut at K), and with a ring of S
// stages the k-step S-1 before it copies that partial tile ahead. isl's `isolate` AST option on each
// k-step loop separates the k-steps whose own tiles and prefetched tiles lie inside K: the
// AST generator prints them as their own loop, whose copies check no bound in K
// (statement_rewrites.h decides the checks from the instances each call executes), and the
// last k-steps after it. Bound K only (an unbound K keeps one k-loop).
#pragma once

#include <isl/cpp.h>

#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// `schedule` with the isolate option set on the k-step band of every matmul:
//   isolate[[outer...] -> [k_step]] : the k-step's tile lies inside K, and so does the
//   tile it prefetches (when stages > 1 and it is not the last k-step)
isl::schedule isolate_full_ksteps(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& options);

}  // namespace polyfuse
