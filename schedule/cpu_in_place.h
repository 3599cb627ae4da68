// In-place updates of a block on the CPU target, composed: Tensor Comprehensions writes an
// epilogue as updates of the matmul's result,
//   O(m, n) +=! A(m, k) * B(k, n)
//   O(m, n) = O(m, n) + bias(n)
//   O(m, n) = fmax(O(m, n), 0)
// where polyfuse's own examples write one statement, D(m, n) = relu(C(m, n) + bias(n)). Two
// pointwise statements next to each other in a stage's block, the second updating the element
// the first wrote and reading it once, become one: the second with the first's expression in
// place of its read, `O(m, n) = max(O(m, n) + bias(n), 0)`. Only for an f32 tensor, whose
// store of the first value is exact: the composed statement computes the same bits. The block
// is then read and written once instead of once per update, and a composed last touch of a
// matmul can be its BRGEMM's epilogue (schedule/cpu_epilogue.h).
#pragma once

#include "schedule/cpu_plan.h"

namespace polyfuse {

void compose_in_place_updates(CpuPlan& plan);

}  // namespace polyfuse
