// The last step of the CPU plan for convolutions: each packed filter cut into panels of its
// stage's final column block P (after mark_parallel_stages, which may halve it). Packed per
// block (CpuConvTaps::panel_per_block), only the taps' panel strides are set; packed by a copy
// stage, the copy's tensor [batch.., taps.., c, k] becomes [K / P (rounded up)][batch..,
// taps.., c][P] and its description says so. A block's B is then one contiguous panel, its rows
// P elements apart, whatever K; the last panel's columns beyond K are never written nor read.
#pragma once

#include "schedule/cpu_plan.h"

namespace polyfuse {

void finish_filter_panels(CpuPlan& plan);

}  // namespace polyfuse
