// Whether a CPU plan's temporary is overwritten whole by the first stage touching it, so that its
// storage needs no zeroing (codegen/cpu_emit.cc's full temporaries) and a row chain's block of it
// holds nothing from an earlier block that matters (schedule/cpu_row_chains.h).
#pragma once

#include "schedule/cpu_plan.h"

namespace polyfuse {

// Whether the first stage of `plan` that touches temporary `tensor` overwrites all of it: a copy
// stage writing it (CpuPermuteCopy: each element read is written), a blocked stage whose first
// matmul writes it from zero (`+=!`) over as many elements as it has (a convolution's output
// read by a stage of its own), or a pointwise stage whose first statement touching it writes
// every element without reading it (softmax's e = exp(X - mx): 16 MB zeroed per call at 2048^2,
// 11% of its time). Its storage then needs no zeroing pass.
bool first_touch_writes_all(const CpuPlan& plan, const CpuTensor& tensor);

// Whether `stage` reads or writes `tensor` (a matmul's operand, a pointwise statement's, a copy's,
// a loop nest's).
bool stage_touches(const CpuStage& stage, const std::string& tensor);

}  // namespace polyfuse
