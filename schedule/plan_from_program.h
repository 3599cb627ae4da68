// From the front end's IR and idioms to the KernelPlan of the GPU path: one fused
// kernel per def. Programs outside what the GPU path handles yet get a UserError that
// names the statement (with its place in the source) and the reason.
#pragma once

#include "frontend/idioms.h"
#include "frontend/program.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// The plan of `program`: its matmuls (each f16 or bf16 operands) and the pointwise
// epilogues that consume them.
KernelPlan plan_gpu_kernel(const Program& program, const Idioms& idioms);

// The extent of `size` in isl syntax: the bound value, the size's name, or the literal.
std::string extent_text(const Program& program, const Size& size);

// True when `text` is a non-negative integer (e.g. a bound or literal extent), false for a
// size name or an expression.
bool is_integer_text(const std::string& text);

}  // namespace polyfuse
