// Which register tile holds each value of a fused kernel, per warp: one f32 accumulator
// tile per matmul, and for each pointwise epilogue result either the storage of a tile
// it reads that no later statement reads (epilogues compute element by element, so they
// may overwrite an input in place: GEMM + bias + ReLU writes D over C's accumulators)
// or a fresh tile.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "schedule/kernel_plan.h"

namespace polyfuse {

struct RegisterTiles {
  std::map<std::string, std::string> storage;  // matmul result or epilogue output -> tile variable
  std::vector<std::string> declared;           // the tile variables, in declaration order

  // The tile variable holding `tensor` (InternalError if none).
  const std::string& of(const std::string& tensor) const;
};

// Assigns tiles; `reads` gives, per epilogue statement (plan order), the tensors it reads.
RegisterTiles plan_register_tiles(const KernelPlan& plan, const std::vector<std::vector<std::string>>& reads);

}  // namespace polyfuse
