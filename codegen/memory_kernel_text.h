// Text shared by the memory-bound kernels of a plan (codegen/cuda_memory_kernel.h,
// codegen/row_chain_kernel.h): tensor names that cannot clash with the kernels' own names,
// and a reduction operator's combination and identity in f32.
#pragma once

#include <string>

#include "frontend/reduction_op.h"

namespace polyfuse {

// A tensor's name in a memory-bound kernel: its own, unless that could clash with the kernel's
// other names (its variables, indices i_*, locals v_*, kept rows x_*, chunks c_* and o_*), then t_NAME.
std::string memory_kernel_tensor_id(const std::string& name);

// `a op b` in f32 ("a + b", "fmaxf(a, b)", ...).
std::string reduction_combine(ReductionOp op, const std::string& a, const std::string& b);

// The identity of `op` as a float literal ("0.f", "__uint_as_float(0xff800000u) /* -infinity */", ...).
std::string reduction_identity(ReductionOp op);

}  // namespace polyfuse
