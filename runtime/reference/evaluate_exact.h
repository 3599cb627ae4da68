// The exact reference: runs a Program in f64 with, for every element, a bound on how far
// any conforming backend's value may be from it (error_bound.h). The check every backend
// reports (compare.h: compare_outputs with ExactData) uses it: an element passes when
// |actual - exact| <= its bound.
//
// Semantics, exactly (evaluate.h is the same walk in f32):
//  - Statements run one after the other in program order, each over its whole iteration
//    domain in lexicographic order, in place (a statement reading the tensor it writes
//    sees the elements written before, as in evaluate.h).
//  - The value of an element is the program's result in real arithmetic (computed in
//    f64): no rounding is applied to it, not even where a tensor's type is f16 or bf16;
//    every rounding a backend may do is in the bound instead (so a backend that keeps a
//    temporary in registers wider than its type, or that rounds a matmul factor to the
//    operand type, is right either way).
//  - Inputs (and outputs' initial values for `+=`) are exact: bound 0.
//  - A right-hand side is evaluated by the rules of error_bound.h (binary, call, literal,
//    negate); in a reduction whose right-hand side is a product, a factor that is not a
//    plain tensor read may also be rounded to the statement's operand type (the common
//    type of the tensors it reads), as the GPU path stores prologue results.
//  - `*=!` `max=!` `min=!` (and without `!`): a ReductionBound (reduction_bound.h) from 1,
//    -infinity, +infinity / the current element, then stored_as(written type).
//  - `=`: stored_as(written type, value). `+=!` / `+=`: a Reduction from 0 / the current
//    element over every reduction point, then stored_as(written type); its summation
//    factor is the tensor cores' when the operand type is f16 or bf16, else
//    round-to-nearest's (error_bound.h).
//  - `f32`: how the backend runs matmuls of f32 operands (the GPU path's `f32_matmul`):
//    tf32 / 3xtf32 round both factors of a sum of a product of f32 operands (what may run on
//    tensor cores: a matmul, a contraction grouped as a GEMM; a sum the plan leaves to a
//    reduction kernel gets the looser bound too) as error_bound.h's f32_matmul_factor says
//    and sum with that mode's factor; f32 (the CPU target) computes them as any f32 sum.
//  - Temporaries start at zero (exact).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "frontend/program.h"
#include "runtime/reference/error_bound.h"
#include "runtime/reference/tensor_data.h"

namespace polyfuse::reference {

// One tensor of the exact reference: its elements (value and bound), row-major.
using ExactTensor = std::vector<Bounded>;

// Tensor name -> its exact values and bounds.
using ExactData = std::map<std::string, ExactTensor>;

// Runs `program` on `inputs`, which must hold a buffer of the right size for every input
// and output (outputs' values matter for `+=` only), and returns every tensor of the
// program after the run, temporaries included. Every size must be bound (bound_extent).
// A missing or mis-sized buffer throws std::invalid_argument. `f32` and `fp8`: how the
// backend's f32 and FP8 matmuls may round (error_bound.h: F32Matmul, Fp8Accumulation).
ExactData evaluate_exact(const Program& program, const TensorData& inputs, F32Matmul f32 = F32Matmul::f32,
                         Fp8Accumulation fp8 = Fp8Accumulation::f32);

}  // namespace polyfuse::reference
