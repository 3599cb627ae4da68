// Two matmuls whose results the epilogue adds (`D = C1 + C2`, examples/add_gemms.tc) as one
// accumulator on the sm_80 mma.sync path (issue 19): the second matmul's k-loop accumulates
// into the first one's f32 tile, a K-concatenation (the k-steps of C1, then those of C2,
// through the same cp.async ring), and the epilogue reads the sum where it read C1 + C2. One
// accumulator tile leaves the registers for the plain GEMM's 64x64 warp tile, each k-loop has
// the plain GEMM's instructions, and the two reductions may have different sizes.
//
// Exact up to f32 reassociation: both sums accumulate f16/bf16/f32 products in f32, and
// (C1 + C2) becomes ((C1 terms) + C2 terms) in one f32 accumulator — the rounding of a
// matmul of K1 + K2 terms, which the reference check's tolerance covers (runtime/reference).
//
// Taken when: two `+=!` sum matmuls in k-loops of their own (no shared A tile), results that
// are temporaries of the kernel (not stored), read by the epilogue exactly once each and not written by it, both in
// one `C1(...) + C2(...)` node at the same indices; no intra-block split-K (its reduction
// reduces each accumulator on its own). SwiGLU's two matmuls are multiplied, not added: they
// keep two accumulators (two 64x32 warp tiles, one 64x64's registers).
#pragma once

#include <string>

#include "frontend/program.h"
#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// Why `plan`'s two matmuls keep accumulators of their own ("" when they are added and fold).
std::string added_matmuls_refusal(const Program& program, const KernelPlan& plan, const GpuOptions& o);

// Folds them when they may: `program`'s epilogue reads the first matmul's result where it
// added the two, and the second matmul accumulates into the first one's tile
// (MatmulStage::accumulates_into). True when it folded.
bool fold_added_matmuls(Program& program, KernelPlan& plan, const GpuOptions& o);

}  // namespace polyfuse
