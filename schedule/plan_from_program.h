// From the front end's IR and idioms to the KernelPlan of the GPU path: one fused
// kernel per def. Programs outside what the GPU path handles yet get a UserError that
// names the statement (with its place in the source) and the reason.
#pragma once

#include "frontend/idioms.h"
#include "frontend/program.h"
#include "polyfuse/gpu_target.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// The plan of `program`: its matmuls (f16, bf16 or f32 operands, both of one type; f32 ones
// only when `f32` runs them on tensor cores, as TF32 or 3xTF32) and the pointwise epilogues
// that consume them.
KernelPlan plan_gpu_kernel(const Program& program, const Idioms& idioms, F32Matmul f32 = F32Matmul::tf32);

// True when `statement` touches an integer tensor (int32, int64, uint8) or gathers: such a
// statement runs only in the memory-bound kernels of a plan (pointwise, row reduction), never
// on tensor cores or in a row chain.
bool touches_integers(const Program& program, const Statement& statement);

// `size` with its binding applied: the bound value as a literal, else `size` itself.
Size bound_size(const Program& program, const Size& size);

}  // namespace polyfuse
