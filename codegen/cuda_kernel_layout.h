// The resources of one generated GPU kernel, derived from its plan and options: the
// warp arrangement, the register fragments and tiles of a warp, and where each matmul's
// operand tiles live in the block's dynamic shared memory (the matmuls of a fused kernel
// run one after the other and reuse the same bytes).
#pragma once

#include <string>
#include <vector>

#include "codegen/register_model.h"
#include "codegen/register_tiles.h"
#include "frontend/program.h"
#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// One operand's shared-memory tile: the last two dimensions of the tensor, in the
// tensor's own index order (a column-major A(k, m) tile is block.k rows × block.m columns).
struct SharedTile {
  std::string tensor;       // the operand in the matmul (a prologue's temporary, or the input)
  std::string source;       // the global tensor the tile is copied from
  std::string prologue;     // C lambda applied to each element on its way to shared memory ("" none)
  std::vector<PrologueOperand> operands;  // tensors the prologue reads beside the source (lambda arguments 2..)
  // The prologue runs on the landed tile in shared memory (schedule/copies.h's landed_prologue),
  // not between a global load and the shared store; `packed_prologue` maps pairs of elements
  // (codegen/packed_prologue.h; "" when only the f32 lambda gives the same values).
  bool landed = false;
  std::string packed_prologue;
  OperandLayout layout = OperandLayout::row_major;
  int rows = 0, cols = 0;   // in the tensor's index order
  int element_bytes = 2;    // 2 (f16, bf16) or 4 (f32)
  int bytes = 0;            // one buffer
  int offset = 0;           // of buffer 0 in dynamic shared memory; buffer b at offset + b * bytes
};

// The shared tiles of one matmul.
struct MatmulTiles {
  SharedTile a, b;
};

// An epilogue operand that is a vector broadcast over the block tile (bias(n) along the
// columns, scale(m) along the rows): loaded once per block into shared memory as f32
// (codegen/cuda_epilogue_vectors.h).
struct StagedVector {
  std::string tensor;
  std::string index;    // the index it is read by
  bool along_n = true;  // that is the result's column index (else its row index)
  int elements = 0;     // the block tile's columns (rows)
  int offset = 0;       // in dynamic shared memory, past everything else
};

// Everything the statement printer and the kernel preamble need.
struct CudaKernelLayout {
  int warps_y = 1, warps_x = 1, split_k = 1;  // warps per block along m, n and k
  int threads = 32;
  MmaShape mma = MmaShape::m16n8k16;
  bool f32_operands = false;                  // the matmuls take f32 operands (TF32 mma, pf_mma_tf32.cuh)
  int fragments_m = 1, fragments_n = 1;       // accumulator fragments of a warp tile
  int values_per_fragment = 4;                // f32 values a lane holds of one fragment
  std::vector<MatmulTiles> matmuls;           // in plan order
  RegisterTiles registers;                    // accumulators and epilogue results
  bool has_epilogue = false;
  int shared_bytes = 0;                       // dynamic shared memory of a block
  int scratch_offset = 0;                     // accumulator reorder scratch (aliases the tiles)
  std::vector<StagedVector> staged_vectors;   // epilogue vectors in shared memory (none: loaded per fragment)
  RegisterModel register_model;               // registers per thread (codegen/register_model.h)
  // Two fragment register sets, k-slice j+1's loaded under k-slice j's MMAs (codegen/fragment_pipeline.h),
  // and why or why not.
  bool fragment_pipeline = false;
  std::string fragment_pipeline_why;

  // Helper types of the MMA shape: the warp's accumulator tile, a tile of one fragment
  // (epilogue operands), and the A and B fragments.
  std::string accumulator_type() const;
  std::string fragment_tile_type() const;
  std::string a_fragment_type() const;
  std::string b_fragment_type() const;

  // The B fragments' array of matmul `mm` of `plan`: "b_frag", or with two fragment sets in a
  // k-loop of several matmuls (their B fragments all live across a k-slice) "b_frag_<C>".
  std::string b_fragments(const KernelPlan& plan, const MatmulStage& mm) const;
  // The shared tiles of the matmul computed by statement `statement`.
  const MatmulTiles& tiles_of(const KernelPlan& plan, const std::string& statement) const;
  // The staged vector `tensor` along n (or m), or nullptr.
  const StagedVector* staged_vector(const std::string& tensor, bool along_n) const;
};

// The layout of the kernel of `plan` with `options` (16-bit or f32 operands); `epilogue_reads`
// lists the tensors each epilogue statement, and a row chain fused after it, reads (for the
// register tiles).
CudaKernelLayout cuda_kernel_layout(const KernelPlan& plan, const GpuOptions& options, const EpilogueReads& epilogue_reads);

// The name of a prologue operand's element in the prologue's lambda: "scale_k" for scale(k).
std::string prologue_operand_value(const PrologueOperand& operand);

// The register tile that stages `operand`'s elements beside `tile`'s: "A_scale_k_staging".
std::string operand_staging_name(const SharedTile& tile, const PrologueOperand& operand);

// C spelling of an element type: "__half", "__nv_bfloat16", "float".
std::string cuda_type(ElementType type);

// `value` (f32), the value `statement` writes, as a later read of its tensor sees it: rounded
// (and, for integers, saturated) to the tensor's type when that is not f32 and a statement after
// `statement` reads the tensor (or updates it: `T += ..`); else `value`. A kernel that keeps the value on chip for those
// reads (registers, fragments) must keep this one: the program reads what was stored — an f16
// output of 1e5 is read back as inf, not as 1e5.
std::string as_read_back(const Program& program, const Statement& statement, const std::string& value);

}  // namespace polyfuse
