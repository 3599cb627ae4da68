// The CPU schedule of one def: a list of cache-blocked loop nests ("stages"), each a
// parallel loop over mc x nc blocks of one output space whose body is first touch, main
// (one BRGEMM call per matmul) and last touch (the fused pointwise statements).
//
//   for each batch index b.., each m block m0, each n block n0      (OpenMP, collapsed)
//     first touch   C block := 0 (fused into the BRGEMM: accumulate = false), or the
//                   current C for `+=`
//     main          BRGEMM: C block += sum over kc slices of A(m0.., k..) B(k.., n0..)
//                   (the slices are the BRGEMM batch; a batch-reduce matmul's r is it)
//     last touch    pointwise statements on the block: bias, activations, residuals,
//                   sums of several matmuls, conversion to the output type
//
// Why a loop-nest description rather than an isl schedule tree: on the CPU every idiom
// gets the same band structure (one parallel band over the output blocks, the reduction
// band contracted into one primitive call, pointwise statements on the block), every
// size is bound, and the primitives take whole blocks, so there is nothing for isl's AST
// generator to decide. The polyhedral part that matters, dependences and the idioms
// they reveal, comes from the front end (frontend/idioms.h), and fusion below follows
// those relations: a pointwise statement joins a nest only if every value it reads from
// the nest is at the element it writes (a RAW dependence inside one block).
//
// Statements the blocks do not take — reductions that are not matmuls (softmax's max and sum,
// a norm's mean and variance), '?:' and index values — are stages of their own: plain loop
// nests over whole tensors, in program order between the blocked stages, every tensor they
// touch kept whole (a full temporary). So GEMM + softmax is a BRGEMM stage writing C, a
// loop nest for the row max, a blocked pointwise stage for exp, a loop nest for the sum and a
// pointwise stage for the division.
//
// Prologues (pointwise functions of a matmul operand, a statement `Ar = relu(A)` or a
// factor `relu(A(m, k)) * B(k, n)`) run as their own pointwise stage before the matmul
// and write a full temporary that the BRGEMM reads; operands of different element types
// are converted the same way (to f32, the common type). A factor's prologue result is
// f32 (the language evaluates a right-hand side in f32), so the other operand of that
// matmul is converted to f32 too; a prologue statement's temporary keeps its own type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frontend/expr.h"
#include "frontend/idioms.h"
#include "frontend/program.h"
#include "schedule/cpu_target.h"

namespace polyfuse {

// Where the generated code keeps a tensor.
enum class CpuStorage {
  parameter,       // an input or output: a pointer argument of the entry function
  full_temporary,  // a temporary read outside the stage that writes it: allocated whole
  block_local,     // a temporary used only inside one stage: one f32 block per thread
  chain_local,     // a temporary only a row chain's stages touch: a block of its rows per thread
};

// "parameter", "full temporary", "block local", "chain temporary".
std::string_view to_string(CpuStorage storage);

// One tensor of the generated code.
struct CpuTensor {
  std::string name;
  ElementType type = ElementType::f32;   // block-local tensors are f32 whatever this says
  std::vector<std::int64_t> shape;      // bound extents, row-major
  TensorRole role = TensorRole::input;
  CpuStorage storage = CpuStorage::parameter;
  bool synthetic = false;               // made by the CPU schedule (a prologue's result)
};

// The role of one index in a stage: which loop of the block nest it follows. `folded`: an
// outer index folded into m (schedule/cpu_fold.h), addressed through m's stride.
enum class CpuDim { batch, m, n, k, r, folded };

// How one tensor access is addressed inside a block: the role of each of its dimensions.
struct CpuAccess {
  std::string tensor;
  std::vector<CpuDim> dims;          // per tensor dimension
  std::vector<int> batch_positions;  // per tensor dimension: which batch index (batch only)
};

// Where the outer of a convolution's two taps reads only the zero border (CpuConvTap::border): the
// input dimension it reads, batch_coefficient * (the stage's batch index `batch`) +
// tap_coefficient * tap + constant, lies outside [0, input_extent) for some taps of some blocks
// (`p + r - 1` at p = 0 and r = 0). A block skips those taps when its filter panel is finite there
// (their products are zeros); `counts` are the numbers of taps left in some block, each below the
// tap's extent and above 0, in increasing order; the extent is at most 32 (a bit per tap).
struct CpuTapBorder {
  std::size_t batch = 0;  // position among the stage's batch indices (CpuConvTaps::a_batch)
  std::int64_t batch_coefficient = 1;
  std::int64_t tap_coefficient = 1;
  std::int64_t constant = 0;
  std::int64_t input_extent = 0;
  std::vector<std::int64_t> counts;
  // Taps [inner_first, inner_last) read the input proper in every block that skips some: the
  // panel's finiteness is checked at the others only.
  std::int64_t inner_first = 0, inner_last = 0;
};

// One filter tap of a convolution's main (schedule/cpu_conv.h): a loop, or the BRGEMM batch.
struct CpuConvTap {
  std::string index;          // the reduction index ("r")
  std::int64_t extent = 1;
  std::int64_t a_stride = 0;  // elements of A between consecutive taps
  std::int64_t b_stride = 0;  // elements of B between consecutive taps (in panels when packed)
  std::int64_t filter_stride = 0;  // elements of the stored filter between consecutive taps
  std::optional<CpuTapBorder> border;  // the outer of two taps of some convolutions
};

// A convolution's main as BRGEMMs over its filter taps: in a block at (batch.., m0, n0) and at
// taps t.., A starts at element a_origin + sum(a_batch[i] * batch index i) + lda * m0 +
// sum(a_stride * t) of the matmul's A tensor (the input, or its zero-padded copy): rows are
// output columns lda apart, columns the channels. B is the matmul's B access (the filter in
// [taps.., c, k] order, packed when not stored so) plus the taps' b_stride.
struct CpuConvTaps {
  std::int64_t a_origin = 0;
  std::vector<std::int64_t> a_batch;  // per batch index of the stage
  std::int64_t lda = 0;
  std::vector<CpuConvTap> taps;       // outer taps (loops) first; the last is the BRGEMM batch
  std::string input, filter;          // the tensors as the program names them
  bool filter_packed = false;         // B is a packed copy of the filter
  // > 0 (with filter_packed): B is the filter in panels of this many output channels, the
  // stage's column block, [taps.., c][panel] each: rows `panel` elements apart, the taps'
  // b_stride panel strides. Either a copy stage packs them all before the blocks
  // ([K / panel][batch.., taps.., c][panel], CpuPermuteCopy; B is the copy, a block's panel its
  // n0 / panel), or, with panel_per_block, each thread packs the panel of the block at hand
  // into its own buffer when it holds another (B is the stored filter): a filter without
  // batch indices whose channels or output channels are contiguous (KRSC, RSCK). The blocks
  // run output-channel block outermost, so a thread packs each panel once (twice where two
  // threads share one) and the blocks read it from L2, not the whole packed filter from memory.
  std::int64_t filter_panel = 0;
  bool panel_per_block = false;
  // > 0: pixels in vectors (schedule/cpu_conv.h's pixels_in_vectors_dim): A is the input's copy
  // with the pixel column innermost, so A is column-major, its rows (pixels) lda = 1 apart and
  // its columns (channels) this many elements apart; the block accumulates column-major in a
  // buffer that a transposition stores.
  std::int64_t a_channel_stride = 0;

  // The outer taps' iterations: the loops around the BRGEMMs.
  std::int64_t outer_iterations() const {
    std::int64_t iterations = 1;
    for (std::size_t t = 0; t + 1 < taps.size(); ++t) iterations *= taps[t].extent;
    return iterations;
  }
};

// A zero-padded copy of a convolution's input (schedule/cpu_conv.h): `to` is `from` with
// `before` and `after` zero elements around each dimension.
struct CpuPadCopy {
  std::string from, to;
  std::vector<std::int64_t> before, after;
  // Set: `to` also has this dimension of `from` (the convolution's pixel column) moved innermost,
  // the others in order (CpuConvTaps::a_channel_stride); the dimensions after it have no border.
  std::optional<std::size_t> innermost_dim;
};

// A convolution's filter reordered into the BRGEMM's B (schedule/cpu_conv.h): `to` holds
// `from` in the order `indices` ([batch.., taps.., c, k], dimension d of that order is
// dimension from_dim[d] of `from`), cut along k into panels of `panel` columns:
// to[k / panel][batch.., taps.., c][k % panel]. Run once per call, before the blocks: one
// (c x panel) copy per panel and outer index, a transposition through registers when `from`
// is contiguous along c (KRSC), a row copy when contiguous along k.
struct CpuPermuteCopy {
  std::string from, to;
  std::vector<std::size_t> from_dim;
  std::vector<std::string> indices;  // of the packed order ("r", "s", "c", "k"): loop names
  std::string source;  // "F_packed(k / 32, r, s, c, k % 32) = F(k, r, s, c)", for comments
  std::string why;     // "the filter packed as the BRGEMM's B, in panels of 32 output channels"
  std::int64_t panel = 0;  // columns of a panel (set by the plan's last step)
};

// A last touch the BRGEMM does itself (schedule/cpu_epilogue.h; kernels/cpu's BrgemmEpilogue):
// pointwise statement `statement` writes `output` = post((C + bias) + addend) from the matmul's
// block C, in registers before the store. C's block is then not stored (a convolution whose
// outer taps accumulate in a block buffer stores only there), and not read again.
struct CpuEpilogue {
  std::string statement;          // the pointwise statement ("S1")
  CpuAccess output;               // an f32 block of the stage's output space
  std::optional<CpuAccess> bias;  // a row (n) or column (m) of the block, f32, contiguous
  std::optional<CpuAccess> addend;  // an f32 block read at the element written (a residual)
  std::optional<Function> post;   // a one-argument function after the bias
};

// One matmul of a stage, lowered to a BRGEMM per block.
struct CpuMatmul {
  std::string statement;   // id, e.g. "S0"
  std::string source;      // the statement as written, for comments
  CpuAccess a, b, c;       // A (m x k), B (k x n), C (m x n)
  MatrixLayout a_layout = MatrixLayout::row_major;
  MatrixLayout b_layout = MatrixLayout::row_major;
  ElementType dtype = ElementType::f32;  // of A and B (equal after conversion prologues)
  bool zero_init = true;   // `+=!`: the first BRGEMM overwrites (accumulate = false)
  std::int64_t k = 0;      // extent of the contracted index
  std::int64_t reduce_batch = 1;  // extent of r for a batch-reduce matmul, else 1
  // The reduction in kc slices: `k_slices` slices of `kc` as one BRGEMM batch, then a
  // tail of k_tail (0: none). A batch-reduce matmul keeps k whole (its batch is r).
  std::int64_t kc = 0;
  std::int64_t k_slices = 1;
  std::int64_t k_tail = 0;
  // Set: a convolution; `a` then names only its tensor (the taps say how it is addressed),
  // k is the channel count and reduce_batch the innermost tap's extent.
  std::optional<CpuConvTaps> conv;
  // Set: the BRGEMM's last call also does this pointwise statement of the stage.
  std::optional<CpuEpilogue> epilogue;
  // B is a constant input (CpuScheduleOptions::constant_inputs, schedule/cpu_constants.h): its
  // packed form is kept between calls, packed again only for another pointer.
  bool b_constant = false;

  // A convolution with pixels in vectors (CpuConvTaps::a_channel_stride).
  bool pixels_in_vectors() const { return conv && conv->a_channel_stride > 0; }
  // A convolution whose innermost outer tap is its BRGEMM's outer batch (BrgemmConfig::
  // outer_batch; an f32 kernel reads A and B in place): a 3x3 filter is one call of 9 taps.
  bool conv_outer_batch() const { return conv && dtype == ElementType::f32 && conv->taps.size() >= 2; }
};

// One pointwise statement of a stage: write = expr on every element of the block.
struct CpuPointwise {
  std::string statement;       // id ("S1"), or "<matmul>.<operand>" for a factor prologue
  std::string source;          // the statement as written, for comments
  CpuAccess write;             // dims are batch.., m, n in order (m or n absent below rank 2)
  std::vector<CpuAccess> reads;  // what Expr::read nodes index
  Expr expr;                   // `+=` without reduction index is already `W + expr` here
  bool in_epilogue = false;    // done by the stage's BRGEMM (CpuMatmul::epilogue), not by a pass
};

// A statement the blocks do not take (a row reduction such as softmax's max and sum, a '?:', an
// index used as a value), run as a plain loop nest over whole tensors
// (codegen/cpu_loop_nest.h's emit_statement_loop_nest) between the blocked stages.
struct CpuLoopNest {
  std::string statement;  // id ("S1")
  std::string source;     // the statement as written, for comments
  std::string why;        // why not in a block ("a max reduction, not a matmul")
  std::string write;      // the tensor it writes
  std::vector<std::string> reads;
  std::int64_t flops = 0;  // schedule/loop_nest_threads.h's loop_nest_flops
  std::string outer;       // the outermost written index: the loop the threads split
  std::string serial;      // why that loop stays on one thread (loop_nest_serial_reason); empty: it may split
};

// One blocked loop nest, or one statement's plain loop nest.
struct CpuStage {
  std::string name;                      // "stage0", ...: names the block function
  std::vector<std::string> batch_names;  // loop variables, from the first statement
  std::string m_name, n_name;            // index names of rows and columns ("" if absent)
  std::vector<std::int64_t> batch_extents;
  std::int64_t m_extent = 1;
  std::int64_t n_extent = 1;
  CpuBlocking blocking;                  // mc x nc blocks of the output space
  // Floating-point operations of one run of the stage: 2 M N K (times the batch and the
  // reduce-batch or the convolution's taps) per matmul, one per element per pointwise
  // operation; a stage without a matmul adds kCpuFlopsPerElement per element (a copy: per
  // element written; a loop nest: per point, CpuLoopNest::flops). Below
  // CpuScheduleOptions::min_parallel_flops the block loops run on the calling thread (no
  // OpenMP region: `parallel` is false).
  std::int64_t flops = 0;
  bool parallel = true;
  std::vector<CpuMatmul> matmuls;        // main, in program order
  std::vector<CpuPointwise> pointwise;   // last touch, in program order (or the whole stage)
  std::optional<CpuLoopNest> loop_nest;  // set: the stage is this statement's loop nest instead
  std::optional<CpuPadCopy> pad;         // set: the stage is this padded copy instead
  std::optional<CpuPermuteCopy> permute; // set: the stage is this reordering copy instead
  // Set: the stage is one of a row chain's (CpuPlan::row_chains, that index): it runs inside the
  // chain's loop over blocks of rows, on the block's rows only; its own `parallel`, and a blocked
  // stage's mc, are the chain's.
  std::optional<std::size_t> row_chain;
};

// Consecutive stages without matmuls — row reductions' loop nests (softmax's max and sum, a
// norm's mean and variance) and blocked pointwise stages — that touch the tensors they write only
// at the row they compute (schedule/cpu_row_chains.h): one loop over blocks of `rows` rows runs
// each block through all of them in turn, so what one stage writes the next reads from L2
// instead of memory.
struct CpuRowChain {
  std::size_t first = 0, last = 0;  // stages first..last (inclusive)
  std::string index;                // the first stage's row index ("m"), for comments
  std::int64_t extent = 0;          // rows
  std::int64_t rows = 0;            // rows of a block
  std::int64_t flops = 0;           // of its stages together
  bool parallel = true;             // the blocks on the threads (flops >= min_parallel_flops)
  std::int64_t row_bytes = 0;       // bytes of one row of every tensor it touches by rows
  // Its temporaries (CpuStorage::chain_local): each thread keeps a block of `rows` rows of each,
  // indexed from the block's first row, not the whole tensor.
  std::vector<std::string> temporaries;
};

// The element stride of the tensor dimension that `access` indexes by `dim` (its first such
// dimension), from the tensor's `strides`; an internal error when none does.
std::int64_t access_stride(const CpuAccess& access, const std::vector<std::int64_t>& strides, CpuDim dim);

// The row-major element strides of a tensor of `shape`.
inline std::vector<std::int64_t> row_major_strides(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

// The CPU schedule of one def.
struct CpuPlan {
  std::string name;                  // the def
  std::vector<CpuTensor> tensors;    // program tensors, then synthetic ones
  std::vector<CpuStage> stages;      // in execution order
  std::vector<CpuRowChain> row_chains;  // runs of stages in one loop over row blocks
  int threads = 0;                   // CpuScheduleOptions::threads
  bool pointwise_loops = true;       // CpuScheduleOptions::pointwise_loops
  std::vector<std::string> constant_inputs;  // CpuScheduleOptions::constant_inputs

  // The tensor called `name` (checked).
  const CpuTensor& tensor(const std::string& name) const;
};

// The default of CpuScheduleOptions::min_parallel_flops.
inline constexpr std::int64_t kCpuMinParallelFlops = std::int64_t{1} << 23;
// An element that a stage without a matmul moves (a copy's, a pointwise stage's, a point of a
// loop nest) against the threshold: a copied element (read, written, from and to memory) takes
// about as long as 32 of a BRGEMM's flops on one core (ResNet-50's stride-2 3x3 at batch 2 on
// one AVX-512 core: its 831,744-element padded copy 0.14-0.25 ms, 0.17-0.30 ns an element; the
// BRGEMM 150 GFLOP/s, 0.0067 ns a flop). Copies of 2^18 elements and more run on every thread.
inline constexpr std::int64_t kCpuFlopsPerElement = 32;
// A smaller copy that a parallel stage reads runs on the threads too from this many elements
// (ResNeXt-50's grouped 3x3 at 28 x 28: its 230,400-element padded copy took 0.05 of 0.30 ms on
// one of two threads; on both the call took 0.245 ms).
inline constexpr std::int64_t kCpuMinParallelCopyElements = std::int64_t{1} << 15;

// Options of the CPU schedule.
struct CpuScheduleOptions {
  CpuTarget target = default_cpu_target();
  // Overrides goto_blocking(target) when every field is > 0 (tests use small blocks).
  CpuBlocking blocking;
  // OpenMP threads of the block loops (a `num_threads` clause); 0: OpenMP's default (all
  // cores, or OMP_NUM_THREADS). Results do not depend on it: threads split output blocks,
  // never a reduction.
  int threads = 0;
  // A blocked stage with fewer floating-point operations than this runs on one thread, as
  // OpenBLAS does with small GEMMs: a parallel region costs a few microseconds on idle cores,
  // and whole scheduler time slices (milliseconds, measured: 10-20 ms a call at load 5-8 on
  // 2 cores) when a core is busy with something else, for a stage that takes under a
  // millisecond on one core. The default, 2^23 (about 55 microseconds of one core's work),
  // keeps GEMMs below 160^3 on one thread; above it a region's few microseconds on idle cores
  // are under a tenth of the stage. 2^25 kept convolutions of 15-30 Mflop (ResNeXt's grouped
  // 3x3 at batch 1, the bench's odd 3x3) on one thread while oneDNN ran them on two:
  // 0.20 -> 0.37x and 0.55 -> 0.85x oneDNN on 2 threads (bench/results/2026-11-29-cpu-threshold.md).
  // 0: every stage with more than one block is parallel (tests of the thread count use it at
  // small sizes).
  std::int64_t min_parallel_flops = kCpuMinParallelFlops;
  // Inputs whose values do not change between calls with the same pointer (a network's
  // weights): the packed copy of such a matmul operand (a GEMM's shared packed B, a
  // convolution's filter panels) is made on the first call and kept, per calling thread, until a
  // call passes another pointer or polyfuse_<def>_forget_constants() is called (after the
  // values behind the same pointer changed). schedule/cpu_constants.h says which operands.
  std::vector<std::string> constant_inputs = {};
  // Row chains (schedule/cpu_row_chains.h); off: every stage over whole tensors (tests compare).
  bool row_chains = true;
  // A pointwise statement's arithmetic on whole blocks in one generated loop
  // (codegen/cpu_pointwise_calls.h); off: a kernels/cpu call per operation (tests compare bits).
  bool pointwise_loops = true;
  // Cheap f32 temporaries computed where they are read (schedule/cpu_inline.h: a layer norm's
  // d = X - mean); off: stored and read back (tests compare bits).
  bool inline_temporaries = true;
  // Transcendental terms of row reductions computed on vectors first (schedule/cpu_outline.h:
  // a log-sum-exp's exp(X - mx)); off: the scalar function in the reduction's loop (tests compare).
  bool outline_transcendental_terms = true;
  // A convolution's taps that read only the zero border skipped per block where the filter is
  // finite there (schedule/cpu_conv_border.h); off: every tap (tests compare).
  bool skip_border_taps = true;
};

// The CPU schedule of `program`. Throws UserError naming the statement for what the
// CPU target does not handle (an unbound size, a matmul's operand or prologue read that is
// not a plain element, a row, a column or a scalar of its block). Other statements whose
// reads no block primitive takes run as loop-nest stages.
CpuPlan plan_cpu(const Program& program, const CpuScheduleOptions& options = {});

// Readable dump of `plan` (for --emit=schedule and golden tests).
std::string to_string(const CpuPlan& plan);

}  // namespace polyfuse
