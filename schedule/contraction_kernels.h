// plan_program's step for a contraction that groups as a GEMM (schedule/contraction_to_gemm.h):
// its kernels appended to the plan — permutation copies (pointwise), the GEMM over the grouped
// view (a tensor-core kernel, with the pointwise statements right after it that it takes as
// epilogues), the output's permutation — each with its view program. A convolution grouped as
// an implicit GEMM (schedule/implicit_gemm.h, a_gathered) is one implicit_gemm kernel the same way.
#pragma once

#include <string>
#include <vector>

#include "frontend/program.h"
#include "schedule/contraction_to_gemm.h"
#include "schedule/program_plan.h"

namespace polyfuse {

// Appends the kernels of contraction `s` (grouped as `grouping`, is_gemm) to `plan`, their
// workspace tensors to `temporaries`; the GEMM kernel's `statements` are `s` and the epilogues it
// took; `f32` as plan_program's. False, `plan` unchanged, when a size is unbound or no tensor-core kernel takes the GEMM
// (`note` then says why: f32 operands, ...).
bool plan_contraction_kernels(const Program& program, const Statement& s, const ContractionGrouping& grouping,
                              F32Matmul f32, ProgramPlan& plan, std::vector<ContractionTemporary>& temporaries, std::string& note);

}  // namespace polyfuse
