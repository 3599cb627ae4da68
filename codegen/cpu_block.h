// The body of one stage's block function in the generated C++ of the CPU target: first
// touch, main (BRGEMM) and last touch (Unary/Binary primitives) on one block of
// `rows` x `cols` output elements at (batch indices.., m0, n0). `rows` and `cols` are
// template parameters of the block function, so every kernel object is built once per
// block shape with hard-coded sizes, as kernels/cpu wants them.
#pragma once

#include <string>
#include <vector>

#include "codegen/cpu_names.h"
#include "schedule/cpu_plan.h"

namespace polyfuse {

// Loop variables of a stage in the generated code.
struct CpuStageVariables {
  std::vector<std::string> batch;  // one per batch index
  std::string m0, n0;              // block origins ("" when the stage has no rows/columns)
};

// The generated block function of one stage, in pieces.
struct CpuBlockCode {
  std::vector<std::string> tensors;     // tensors passed in, in plan order (identifiers)
  std::vector<std::string> parameters;  // "const uint16_t* A", then the loop variables
  std::string body;                     // statements, each line indented by two spaces
};

// Lowers `stage` of `plan` to a block body.
CpuBlockCode emit_cpu_block(const CpuPlan& plan, const CpuStage& stage, const CpuNames& names,
                            const CpuStageVariables& variables);

}  // namespace polyfuse
