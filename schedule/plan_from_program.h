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

// `size` with its binding applied: the bound value as a literal, else `size` itself.
Size bound_size(const Program& program, const Size& size);

}  // namespace polyfuse
