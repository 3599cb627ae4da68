// The fused pointwise epilogue of the sm_90a kernel (hopper_gemm_kernel.h) on one element of a
// consumer warpgroup's staged accumulator tile.
#pragma once

#include <string>

#include "frontend/program.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// The epilogue of `plan` on element (pf_m, pf_n) (`in`: inside C) — of batch element `batch`, the
// linearised batch coordinate, when C has batch indices — after `<C>_v` holds each matmul's
// result there: each statement's value in `<tensor>_v`, every live-out stored (a matmul's C too
// when it is one). Batch indices an access names are recovered from `batch` where they are used. Lines
// indented for the body of the element loop.
std::string hopper_epilogue_element(const Program& program, const KernelPlan& plan);

}  // namespace polyfuse
