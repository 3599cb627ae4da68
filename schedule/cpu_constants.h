// Constant inputs on the CPU target (CpuScheduleOptions::constant_inputs): which matmul operands
// the generated code packs once and keeps between calls. A matmul's B read as the def's input
// itself (not a prologue's result, not a copy stage's) and packed by the generated code is
// marked CpuMatmul::b_constant:
//   - a GEMM's B packed once per call and shared by the row blocks (codegen/cpu_block.h's
//     cpu_block_can_share_b; a constant B is shared with one row block too): packed on the first
//     call, again when the pointer or the generation (polyfuse_<def>_forget_constants) changes
//     (a k tail past the kc slices reads B itself in every call);
//   - a convolution's filter packed per block (CpuConvTaps::panel_per_block): each thread keeps
//     every panel it packed, keyed the same way.
// Names that are not inputs of the def are refused (UserError naming them). A constant input
// read some other way (a bias, a filter with groups, which a copy stage packs) is read as in
// every call: nothing is kept, and the schedule does not say "kept between calls" for it.
#pragma once

#include "frontend/program.h"
#include "schedule/cpu_plan.h"

namespace polyfuse {

void mark_constant_inputs(const Program& program, const std::vector<std::string>& constant_inputs, CpuPlan& plan);

}  // namespace polyfuse
