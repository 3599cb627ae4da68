// Which register tile holds each value of a fused kernel, per warp: one f32 accumulator
// tile per matmul, and for each pointwise epilogue result either the storage of a tile
// it reads that no later statement reads, in the epilogue or in a row chain fused after it
// (epilogues compute element by element, so they may overwrite an input in place: GEMM + bias
// + ReLU writes D over C's accumulators) or a fresh tile.
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

// The tensors each epilogue statement reads (plan order), and those read after the epilogue by
// a row chain fused into the kernel (codegen/fragment_row_chain.h): no epilogue result takes
// their tiles.
struct EpilogueReads {
  std::vector<std::vector<std::string>> by_statement;
  std::vector<std::string> after_epilogue;
};

// Assigns tiles from the epilogue's reads.
RegisterTiles plan_register_tiles(const KernelPlan& plan, const EpilogueReads& reads);

}  // namespace polyfuse
