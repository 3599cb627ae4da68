// The memory-bound kernels of a plan (schedule/program_plan.h), as readable CUDA:
//
//   pointwise      one element of the statements' common domain per thread, grid-stride,
//                  256 threads a block; a temporary read only inside the kernel stays a local;
//   row reduction  one statement `W(i..) op=! f(.., r..)` (op any of + * max min, with `op=`
//                  starting from W's value): each written element is reduced by one warp
//                  (8 elements a block) when it has at most 1024 terms, else by one block of
//                  8 warps; lanes accumulate strided terms in f32, then `__shfl_xor_sync`
//                  butterflies combine a warp's lanes and shared memory the block's warps.
//                  Every load is bounds-checked against the term count;
//   row chain      reductions and pointwise statements over the same rows, one warp or block
//                  a row, each row read once (codegen/row_chain_kernel.h).
//
// Every size must be bound (the plan refuses otherwise); tensors are row-major and
// contiguous, f16/bf16 elements converted with pf::to_float / pf::from_float, the
// language's functions are pf::op:: (kernels/cuda/pf_pointwise.cuh: the source needs the
// helpers before it).
#pragma once

#include "codegen/cuda_emitter.h"
#include "frontend/program.h"
#include "schedule/gpu_options.h"
#include "schedule/program_plan.h"

namespace polyfuse {

// The kernel of `kernel_program` (program_plan.h's kernel_program: its statements, its
// tensors' roles) of kind `kind` (pointwise, row_reduction or row_chain), for `arch`. `def` names the
// def the plan came from, for the header comment. No host launcher and no helpers: the plan's
// source (cuda_plan.h) adds them.
EmittedKernel emit_memory_kernel(const Program& kernel_program, PlannedKernelKind kind, const std::string& def,
                                 Arch arch);

}  // namespace polyfuse
