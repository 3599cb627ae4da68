// The CPU target's code generator: one def -> one readable C++ translation unit that
// calls kernels/cpu primitives inside the cache-blocked, OpenMP-parallel loop nests of
// the CPU schedule (schedule/cpu_plan.h).
//
// ABI of the generated code (every size is bound at compile time; the CPU target
// specialises each kernel object to the shapes it sees, as the seeds' primitives want):
//
//   extern "C" void polyfuse_<def>(const T0* in0, ..., T* out0, ...);
//   extern "C" void polyfuse_<def>_buffers(void* const* buffers);
//
// The first takes one pointer per tensor of the def's signature, inputs then outputs,
// in declaration order; each buffer is row-major and contiguous with the bound sizes.
// T is `float` for f32 and `uint16_t` for f16 (IEEE binary16 bits) and bf16 (bfloat16
// bits). The second takes the same pointers as an array (for loaders: runtime/cpu).
// Both are safe to call from one thread at a time per output set; they run their own
// OpenMP parallel loops. Temporaries are allocated inside the call.
//
// Compile with: c++ -std=c++20 -O3 -march=native -fopenmp -ffp-contract=off -I<kernels/cpu/include>
// (and, with GCC, -fno-tree-loop-if-convert: GCC 12.2 miscompiles zero-padded reads on AVX-512
// without it),
// link polyfuse_kernels_cpu (and -lmvec on x86-64; runtime/cpu does this).
#pragma once

#include <string>

#include "frontend/program.h"
#include "schedule/cpu_plan.h"

namespace polyfuse {

// "polyfuse_<def>": the name of the typed entry point of `def`.
std::string cpu_entry_name(const std::string& def);

// The C++ source of `program` for the CPU. Throws UserError for programs the CPU target
// does not handle (see plan_cpu) and for unbound sizes.
std::string emit_cpu(const Program& program, const CpuScheduleOptions& options = {});

// The program the CPU target compiles for `program`: its cheap temporaries inlined
// (schedule/cpu_inline.h) unless options.inline_temporaries is off, then the transcendental
// terms of its row reductions outlined (schedule/cpu_outline.h) unless
// options.outline_transcendental_terms is off. emit_cpu(program, options)
// and `--emit=schedule --target=cpu` start from it.
Program cpu_program(const Program& program, const CpuScheduleOptions& options);

// The C++ source of an already built CPU schedule of `program` (its loop-nest stages are
// emitted from the program's statements).
std::string emit_cpu(const CpuPlan& plan, const Program& program);

}  // namespace polyfuse
