// The entry function's copy stages of the CPU target (schedule/cpu_plan.h): a convolution's
// zero-padded input (CpuPadCopy), the same with its pixel column innermost (pixels in vectors),
// and its filter packed into the BRGEMM's panels (CpuPermuteCopy). Each runs once per call,
// before the blocks that read it, in parallel loops when the stage is parallel.
#pragma once

#include <string>

#include "codegen/cpu_names.h"
#include "schedule/cpu_plan.h"

namespace polyfuse {

// The statements of copy stage `stage` of `plan` (stage.pad or stage.permute), each line
// indented by two spaces, with its comment line first.
std::string emit_cpu_copy_stage(const CpuPlan& plan, const CpuStage& stage, const CpuNames& names);

}  // namespace polyfuse
