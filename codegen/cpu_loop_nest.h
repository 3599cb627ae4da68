// The CPU target's plain loop nests: a statement that the blocked plan's primitives do not take
// (a row reduction such as softmax's, a `?:`, an index value) is one, as a stage between the
// plan's blocked ones (emit_statement_loop_nest); a def with integer tensors runs entirely as
// loop nests (emit_cpu_loop_nest). Every statement becomes a plain loop nest over its domain,
// in program order and in lexicographic order within a statement, exactly the semantics of the
// language (runtime/reference/evaluate.h):
//
//   for m:                       // written indices, outermost first
//     float acc = -INFINITY;     // op=!: the operator's identity; op=: the element
//     for n:                     // reduction indices
//       acc = max(acc, X[m][n]); // the right-hand side in f32 (kernels/cpu's functions)
//     mx[m] = acc;               // rounded once to the written type
//
// Temporaries are f32 arrays (kept wider than their type, which the reference allows).
// The entry function and its `_buffers` form take the def's inputs and outputs in
// signature order, as cpu_emit.h's do. No blocking and no vectors (beyond the compiler's): a
// correct baseline until kernel plans fuse these. A statement's outermost written loop runs on
// the threads (`#pragma omp parallel for`, CpuScheduleOptions::threads) where
// schedule/loop_nest_threads.h allows it and its work reaches min_parallel_flops: each
// iteration computes as on one thread, so the results are the same bits.
#pragma once

#include <functional>
#include <string>

#include "frontend/idioms.h"
#include "frontend/program.h"
#include "schedule/cpu_plan.h"

namespace polyfuse {

// True when some tensor of `program` has an integer type (int32, int64, uint8).
bool has_integers(const Program& program);

// Whether `program` runs entirely as loop nests: it has an integer tensor (integer data and
// gathers run only as loop nests, matmuls included). A def without a matmul takes the blocked
// plan like the others: its pointwise statements on kernels/cpu's vectors, its other
// statements as loop nests between them (softmax 2048 x 2048 f32 on one AVX-512 core: 29.5 ms
// as loop nests only, 15.2 ms so).
bool needs_cpu_loop_nest(const Program& program, const Idioms& idioms);

// The C++ of `program` as plain loop nests; every size must be bound (else a UserError).
// `options`: threads and min_parallel_flops (its blocking and target do not apply).
std::string emit_cpu_loop_nest(const Program& program, const CpuScheduleOptions& options);

// `--emit=schedule --target=cpu` for such a def: a line saying why (`why`), then each statement
// and whether its outer loop runs on the threads.
std::string cpu_loop_nest_schedule(const Program& program, const CpuScheduleOptions& options, const std::string& why);

// How the code around one statement's loop nest names what it touches (the blocked plan of
// cpu_emit.h runs a row reduction after a matmul this way, on its whole tensors).
struct LoopNestNames {
  std::function<std::string(const std::string& tensor)> tensor;  // the pointer's identifier
  // The element type of the tensor's buffer: f32 buffers hold floats, f16/bf16 bit patterns.
  std::function<ElementType(const std::string& tensor)> stored_type;
  std::function<std::string(const std::string& index)> index;    // a loop variable
  std::string accumulator = "acc";                                 // a local float
  // A local of the generated code that no tensor or index name can be ("row" -> "row", or
  // "row_1" where an index is called row); identity where those names carry prefixes.
  std::function<std::string(const std::string& name)> variable = [](const std::string& name) { return name; };
  // Where a tensor's buffer starts along its first dimension (a row chain's temporary holds the
  // chain block's rows: the block variable), "" for 0; unset: 0 for every tensor.
  std::function<std::string(const std::string& tensor)> row_origin;
};

// Where the outermost written loop runs: [begin, end) as C++ expressions (a row chain's block,
// schedule/cpu_row_chains.h); empty: the whole extent.
struct OuterLoopRange {
  std::string begin, end;
};

// The loop nest of `statement` (of `program`, every size bound), each line indented by
// `indent`, in a scope of its own; `outer_pragma` (an OpenMP line) before its outermost
// written loop, if any; `outer_range`: that loop over part of its extent.
std::string emit_statement_loop_nest(const Program& program, const Statement& statement, const LoopNestNames& names,
                                     const std::string& indent, const std::string& outer_pragma = "",
                                     const OuterLoopRange& outer_range = {});

}  // namespace polyfuse
