// The CPU target's code for a def that is one general contraction (schedule/contraction_to_gemm.h),
// possibly with pointwise epilogues over whole index groups:
// the GEMM over grouped indices as the blocked BRGEMM plan of its view program (cpu_emit.h),
// after packing copies of the operands and before one of the output where their layouts need
// them (each a pointwise stage of its own view program). One translation unit: each step's code
// in a namespace named after it (`<def>_step<i>`), then the def's entry point, which allocates the
// packed tensors and calls the steps in order.
//
//   def t(f16(A, B, K, L) X, f16(K, L, C) Y) -> (f16(A, B, C) O) {
//     O(a, b, c) +=! X(a, b, k, l) * Y(k, l, c)     # M=(a, b) N=(c) K=(k, l): one BRGEMM, no copy
//   }
#pragma once

#include <string>

#include "frontend/program.h"
#include "schedule/cpu_plan.h"

namespace polyfuse {

// Whether `program` takes this path: its first statement a contraction that groups as a GEMM
// and that the matmul idioms do not take as written, every other statement one of its epilogues
// (schedule/contraction_to_gemm.h: epilogues_after), computed by the BRGEMM stage's last touch.
bool is_cpu_contraction(const Program& program);

// Whether `program` holds a general contraction (a statement that groups as a GEMM but that the
// matmul idioms do not take as written) beside statements that are not its epilogues, so that
// is_cpu_contraction does not take it (TC's Kronecker3Full: three contractions in a chain). The
// CPU target runs such a def as plain loop nests (cpu_loop_nest.h).
bool has_contraction_beside_other_statements(const Program& program);

// The C++ of `program` (is_cpu_contraction, every size bound) with `options` for each step.
std::string emit_cpu_contraction(const Program& program, const CpuScheduleOptions& options);

// The CPU schedule of `program` (is_cpu_contraction) as text (`--emit=schedule --target=cpu`):
// the grouping, then each step's schedule.
std::string cpu_contraction_schedule(const Program& program, const CpuScheduleOptions& options);

}  // namespace polyfuse
