// The code a convolution's block runs to pack its panel of the stored filter
// (CpuConvTaps::panel_per_block) into the calling thread's buffer, unless the thread holds it:
// per tap, a (c x cols) Unary copy, a transposition when the filter is contiguous along c. A
// constant filter's panels are all kept, each packed unless this thread holds it from an
// earlier call. Part of the block function codegen/cpu_block.h writes.
#pragma once

#include <string>

#include "codegen/cpu_block.h"
#include "codegen/cpu_names.h"
#include "schedule/cpu_plan.h"

namespace polyfuse {

struct CpuFilterPanelCode {
  std::string lines;  // statements of the block function, each indented by two spaces
  std::string data;   // the panel's pointer, for the BRGEMM's B
  // With a border tap (CpuTapBorder): the panel's finite-tap bits (bit t: finite at tap t).
  std::string finite_taps;
};

// `matmul`'s panel (its b a filter packed per block) for the block whose offset in the filter is
// `origin` (" + n0 * 4608", or empty for 0), through the Unary object named `kernel`.
CpuFilterPanelCode emit_filter_panel_pack(const CpuPlan& plan, const CpuMatmul& matmul, const CpuNames& names,
                                          const CpuStageVariables& variables, const std::string& kernel,
                                          const std::string& origin);

}  // namespace polyfuse
