#include "runtime/reference/flops.h"

#include "runtime/reference/tensor_data.h"

namespace polyfuse::reference {

std::int64_t reduction_flops(const Program& program) {
  std::int64_t flops = 0;
  for (const Statement& statement : program.statements) {
    if (!statement.is_reduction()) continue;
    std::int64_t points = 1;
    for (const IterationIndex& index : statement.indices) points *= bound_extent(program, index.extent);
    flops += 2 * points;
  }
  return flops;
}

}  // namespace polyfuse::reference
