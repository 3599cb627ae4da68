// One operand's part of a stage of the sm_90a GEMM kernel (codegen/hopper_gemm_kernel.h): where
// its tile lies in the stage and in the tensor, and the statement that fills it, by TMA or by
// the copying threads (with a prologue, or gathered for an implicit GEMM).
//
//   StageOperand a = stage_operand("A", OperandCopy::tma, 0, true, "m0", 128, 64, 64, M, K);
//   text += stage_tma_load(a, "stage");   // tma_load_tile(stage, A_map, kb * 64, m0, 128, 1, ...)
#pragma once

#include <cstdint>
#include <string>

#include "codegen/main_loop_choice.h"

namespace polyfuse {

// What the generator writes about one operand's part of a stage.
struct StageOperand {
  std::string name;               // the tensor
  OperandCopy copy;
  int offset;                     // bytes from the stage's start
  std::string inner0, outer0;     // its tile's origin: contiguous dimension, rows
  int rows, atoms;                // the tile: `atoms` boxes of 64 x rows (128-byte swizzle)
  std::int64_t extent_inner, extent_outer;  // the tensor as stored: rows of extent_inner elements
  const char* major;              // the wgmma operand tile: "Major::k" (k contiguous) or "Major::mn"
  std::string prologue;           // "" or the functor the copying threads apply to each element
  bool batched = false;           // one matrix per batch element (matrix `batch`), or one for all
  bool multicast = false;         // the cluster shares it: each block loads half, into both blocks
  int box_inner = 64;             // elements of a box's 128-byte row
  std::string gather;             // "" or the tensor its tile is gathered from (an implicit GEMM's A)
  int bytes() const { return rows * atoms * 128; }
};

// An operand of mn_extent x k_extent per block (the tile at mn0, k-block kb): with k contiguous
// in memory (A(m, k), B(n, k)) a K-major tile of `atoms` = k_extent / box_inner boxes of
// mn_extent rows, else an MN-major one of mn_extent / box_inner boxes of k_extent rows (A(k, m),
// B(k, n)); a box's row is 128 bytes, box_inner elements.
StageOperand stage_operand(const std::string& name, OperandCopy copy, int offset, bool k_contiguous, const char* mn0,
                           int mn_extent, int k_extent, int box_inner, std::int64_t mn_size, std::int64_t k_size);

// The producer's TMA load of `o` into stage `stage` (an expression), completing on `barrier`
// (an expression: `full + s`, or `loaded + s` before a prologue applies in place); a multicast
// operand loads this block's half into both blocks of the cluster.
std::string stage_tma_load(const StageOperand& o, const std::string& stage, const std::string& barrier = "full + s");

// The producer threads' prologue on `o`'s tile where TMA loaded it in stage `stage`: threads
// `thread` of `threads` (expressions), elements of `type` (a CUDA type) transformed in place
// (pf::sm90::transform_tile; the functor `prologue`).
std::string stage_transform(const StageOperand& o, const std::string& stage, const std::string& type,
                            const std::string& thread, int threads);

// The copying threads' load of `o` into stage `stage`: vectorised, swizzled like TMA, with the
// operand's prologue applied (not a gathered operand: stage_gather_async).
std::string stage_thread_load(const StageOperand& o, const std::string& stage);

// A gathered operand's copy into stage `stage` by cp.async, asynchronous (pf::sm90::
// cp_async_gather_tile; zeros from the gather's input pointer as the unread source).
std::string stage_gather_async(const StageOperand& o, const std::string& stage);

}  // namespace polyfuse
