// The GPU path's rule for FP8 tensors (e4m3, e5m2): refused, with the tensor's place.
//
// FP8 tensor cores are wgmma's .e4m3/.e5m2 forms on sm_90a (and mma.sync m16n8k32 on sm_89+);
// polyfuse emits neither yet, and the sm_80 mma.sync path has no FP8 form at all. The CPU target
// and the reference run FP8 programs (decoded exactly to f32).
#pragma once

#include "frontend/program.h"

namespace polyfuse {

// Throws UserError at the declaration of the first FP8 tensor of `program`, naming the rule;
// returns when there is none.
void refuse_fp8_on_gpu(const Program& program);

}  // namespace polyfuse
