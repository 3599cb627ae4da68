// A prologue on 16-bit pairs (kernels/cuda pf_pointwise_x2.cuh): the lambda that maps two
// packed elements of a matmul operand at a time with f16x2/bf16x2 instructions, where that
// gives the same values as the f32 lambda element by element (CudaKernelLayout's prologue).
//
// It does when every operation is exact on 16-bit values (relu, max, min, abs, unary minus)
// or one rounding operation (+, -, *) whose operands hold no other: its f32 result rounded to
// the 16-bit type is the correctly rounded 16-bit result, and the exact operations and the
// final rounding commute (they are monotone or flip signs). So `relu(A(m, k))`,
// `A(m, k) * scale(k)` and `max(A(m, k) * s(m), 0)` pack; `A * s * t`, `x / s`, `exp(x)`
// and a literal other than 0 do not. (The plan's prologue operands are inputs of the source's
// type: schedule/plan_from_program.cc.)
#pragma once

#include <optional>
#include <string>

#include "schedule/kernel_plan.h"

namespace polyfuse {

// "[](unsigned x, unsigned scale_k) { return pf::x2::mul<__half>(x, scale_k); }" for
// `prologue` on source elements of `type` (f16 or bf16), or nullopt when it does not pack.
std::optional<std::string> packed_prologue(const OperandPrologue& prologue, ElementType type);

}  // namespace polyfuse
