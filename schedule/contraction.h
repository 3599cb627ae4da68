// Schedule-domain contraction (paper §IV-D): below each warp tile, one statement
// instance becomes one warp-level operation. The domain is constrained to the origins
// of macro-MMA tiles by a filter above the innermost band:
//
//   mark mma                                   (matmul)
//     filter { S0[m, n, k] : m mod MM = 0 and n mod MN = 0 and k mod MK = 0 }
//       band [m mod WM, n mod WN, k mod MK]    loops over macro-MMAs, k mod MK is 0
//   mark fragment                              (pointwise epilogue)
//     filter { S1[m, n] : m mod FM = 0 and n mod FN = 0 }   FM×FN: accumulator_fragment
//       band [m mod WM, n mod WN]              loops over accumulator fragments
//
// The code generator reads the marks: below "mma" an instance S0(m, n, k) is one
// macro-MMA on the tile at (m, n, k); below "fragment" S1(m, n) is one pointwise
// operation on the accumulator fragment at (m, n).
#pragma once

#include <isl/cpp.h>

#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// Contracts every statement's innermost band to macro-MMA tiles (options.mma).
// Expects strip_mine_k's tree.
isl::schedule contract_to_mma(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& options);

}  // namespace polyfuse
