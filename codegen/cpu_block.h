// The body of one stage's block function in the generated C++ of the CPU target: first
// touch, main (BRGEMM) and last touch (Unary/Binary primitives) on one block of
// `rows` x `cols` output elements at (batch indices.., m0, n0). `rows` and `cols` are
// template parameters of the block function, so every kernel object is built once per
// block shape with hard-coded sizes, as kernels/cpu wants them.
#pragma once

#include <string>
#include <vector>

#include "codegen/cpu_names.h"
#include "schedule/cpu_plan.h"

namespace polyfuse {

// Loop variables of a stage in the generated code.
struct CpuStageVariables {
  std::vector<std::string> batch;  // one per batch index
  std::string m0, n0;              // block origins ("" when the stage has no rows/columns)
  // A row chain's block variable (m0, or n0 for a stage without m) when the stage is in one: its
  // chain temporaries (CpuStorage::chain_local) hold the block's rows from there on.
  std::string chain_row;
  // Set when B of the stage's matmul is packed once per call, in the entry function, and
  // shared by every row block (CpuBlockCode::entry): the block function's parameter holding
  // its column block's packed panels. The entry packs with the full block's shape.
  std::string packed_b;
  std::int64_t block_rows = 0, block_cols = 0, n_extent = 0;
  // Set when the stage's convolution packs its filter per block (CpuConvTaps::panel_per_block):
  // the block function's parameter, the calling thread's `FilterPanel<T>&` (the generated
  // code's struct: `data`, and `origin`, the filter element of the panel it holds, or -1), or,
  // for a constant filter (CpuMatmul::b_constant), its `ConstantPanels<T>&` (`data`: every
  // panel, `from[p]`: what panel p was packed from, a PackedFrom).
  std::string filter_panel;
};

// The generated block function of one stage, in pieces.
// The entry function's packing of a shared B (CpuStageVariables::packed_b): `call` without its
// closing ");" (the caller adds a thread's part and share inside a parallel region), inside
// `loop` (a for header over the column blocks) when set, done only when `condition` (a bool
// variable of the entry) holds when set.
struct CpuSharedPack {
  std::string condition, loop, call;
};

struct CpuBlockCode {
  std::vector<std::string> tensors;     // tensors passed in, in plan order (identifiers)
  std::vector<std::string> parameters;  // "const uint16_t* A", then the loop variables
  std::string body;                     // statements, each line indented by two spaces
  // With variables.packed_b: the entry function's statements before the block loops (indented
  // by two spaces), the packing of B, and the argument passing a block its panels.
  std::string entry, packed_b_argument;
  CpuSharedPack pack_b;
  bool thread_buffers = false;  // per-thread block buffers, addressed through `kept` (cpu_emit.cc)
};


// Lowers `stage` of `plan` to a block body.
CpuBlockCode emit_cpu_block(const CpuPlan& plan, const CpuStage& stage, const CpuNames& names,
                            const CpuStageVariables& variables);

}  // namespace polyfuse
