// The reference evaluator: runs a Program on the CPU in plain loops, one statement after
// the other in program order, each over its whole iteration domain in lexicographic
// order. Every backend (CPU code, CUDA on a GPU, the emulator) is checked against it.
//
// Numerics, exactly:
//  - Every tensor is a flat row-major f32 buffer (tensor_data.h); an f16/bf16 tensor
//    holds only values of its type.
//  - A right-hand side is evaluated in f32, whatever the tensors' types: reads widen
//    exactly, literals are rounded to f32, + - * / and the functions are f32 operations
//    (relu(x) = x > 0 ? x : 0, sigmoid(x) = 1 / (1 + exp(-x)), tanh, exp,
//    gelu_erf(x) = 0.5 x (1 + erf(x / sqrt 2)), gelu_tanh(x) = 0.5 x (1 + tanh(0.79788456 (x +
//    0.044715 x^3))), silu(x) = x / (1 + exp(-x)), rsqrt(x) = 1 / sqrt(x), sqrt, log, abs,
//    max, min), as the CPU and GPU paths define them.
//  - `=`: each element is rounded once, to the written tensor's element type, when it
//    is stored.
//  - `+=!` / `+=`: for each written element an f32 accumulator starts at 0 (`+=!`) or at
//    the element's current value (`+=`) and adds the right-hand side for every point of
//    the reduction indices in lexicographic order (e.g. r outer, k inner for a
//    batch-reduce matmul); the sum is rounded to the written tensor's type once, when it
//    is stored. So f16/bf16 products accumulate in f32, as the language says.
//  - `*=!`, `max=!`, `min=!` (and `*=`, `max=`, `min=`) are the same with f32 products,
//    maxima and minima, starting from 1, -infinity and +infinity.
//  - Temporaries are tensors like the others, of the type the front end gives them
//    (f32 for a reduction's result; the common type of its reads for a `=`), rounded
//    the same way; they start at zero.
#pragma once

#include "frontend/program.h"
#include "runtime/reference/tensor_data.h"

namespace polyfuse::reference {

// Runs `program` on `tensors`, which must hold a buffer of the right size for every
// input and output (outputs' initial values matter for `+=` only). Temporaries are
// added to `tensors` (zero-filled first), so tests can look at them. Every size must be
// bound (bound_extent). A missing or mis-sized buffer throws std::invalid_argument.
void evaluate(const Program& program, TensorData& tensors);

}  // namespace polyfuse::reference
