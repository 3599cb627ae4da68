// What the GPU schedule passes need to know about one fused kernel, in plain data: the
// statements, the role of each of their domain dimensions, and the operands' layouts.
// Built from the front end's idioms (schedule/plan_from_program.h); tests build it by hand.
//
// Every statement of a kernel shares the output indices: batch dimensions, then the row
// index `m` and the column index `n` of the output. A matmul statement adds the reduction
// index `k`. Pointwise epilogue statements run on the matmul result in registers.
#pragma once

#include <isl/cpp.h>

#include "frontend/expr.h"
#include "frontend/tensor.h"

#include <optional>
#include <string>
#include <vector>

namespace polyfuse {

// Memory layout of a 2-d operand tile as the MMA sees it.
enum class OperandLayout { row_major, col_major };

// "row" / "col".
const char* to_string(OperandLayout layout);

// The domain dimensions of one statement, by role. Names are the statement's own
// (those of its isl tuple); `k` is present only for matmul statements.
struct StatementDims {
  std::string statement;           // isl tuple name, e.g. "S0"
  std::vector<std::string> batch;  // batch dimensions, outermost first (may be empty)
  std::string m;                   // output row index
  std::string n;                   // output column index
  std::optional<std::string> k;    // reduction index of a matmul
  // Extent of each dimension (0 <= index < extent), in the same order: a size's value
  // when it is bound (plan_from_program.h's bound_size), its name otherwise.
  std::vector<Size> batch_extents;
  Size m_extent, n_extent;
  std::optional<Size> k_extent;

  // "S0[b, m, n, k]": the tuple as isl text, dimensions in domain order.
  std::string tuple_text() const;
};

// A tensor a prologue reads beside its source, broadcast against it: `g(k)` in
// `relu(A(m, k) * g(k))`, indexed by a subset of the source's indices (in any order).
struct PrologueOperand {
  std::string tensor;
  std::vector<std::string> indices;  // the read's index names, as written
  std::vector<int> source_dims;      // for each index of the read, its position among the source's
};

// A pointwise function applied to a matmul operand between its global load and its
// shared-memory store (prologue fusion, paper §VII-C): the operand tile is read from
// `source` and `expr` maps each element. Read node 0 of `expr` is the element itself,
// read node i + 1 the element of operands[i] at the same indices (loaded tile by tile
// beside the source's).
struct OperandPrologue {
  std::string source;                      // the global tensor the operand's tiles are read from
  Expr expr;                               // element (and operands) -> value stored to shared memory
  std::vector<PrologueOperand> operands;   // the broadcast tensors it reads, in order
};

// One matmul contraction C(b.., m, n) (+=! | +=) A(...) * B(...).
struct MatmulStage {
  StatementDims dims;
  std::string a, b, c;           // tensor names
  isl::map a_access, b_access, c_access;  // S[b.., m, n, k] -> A[...], B[...], C[...]
  OperandLayout a_layout = OperandLayout::row_major;  // row: A(m, k); col: A(k, m)
  OperandLayout b_layout = OperandLayout::row_major;  // row: B(k, n); col: B(n, k)
  std::optional<OperandPrologue> a_prologue, b_prologue;  // absent: copy the tensor as it is
  bool zero_init = true;         // `+=!` (true) or `+=` (false)
  // The type the tensor cores take: f16 or bf16 (A and B both), or f32 (TF32 / 3xTF32 tensor
  // cores): A and B f32, or of two different types among f16, bf16 and f32, the 16-bit ones
  // widened exactly when their fragments load (pf_mma_tf32.cuh).
  ElementType operand_type = ElementType::f16;
  // The types of the tiles copied to shared memory: A's and B's (their prologues' sources').
  ElementType a_type = ElementType::f16, b_type = ElementType::f16;
  bool live_out = true;          // C is an output of the program (stored to global memory)
  // This matmul reads the same A tile as the matmul before it (X in `G +=! X * Wg` and
  // `U +=! X * Wu`): both run in one k-loop that loads the tile once per k-step
  // (schedule/shared_operands.h decides).
  bool shares_a_with_previous = false;
  // The matmul whose accumulator this one adds into (its own k-loop continues that sum: the
  // sm_80 kernel of `D = C1 + C2`, codegen/added_matmuls.h); "" for an accumulator of its own.
  std::string accumulates_into;
};

// Matmuls that run in one k-loop: the first one's A tile feeds every member.
struct MatmulGroup {
  std::vector<const MatmulStage*> members;  // in program order; members[0] leads
  const MatmulStage& leader() const { return *members.front(); }
  // The dims of every member.
  std::vector<StatementDims> dims() const;
};

// One pointwise statement that consumes matmul results (an epilogue).
struct PointwiseStage {
  StatementDims dims;
  std::string output;     // tensor written
  isl::map write_access;  // S[b.., m, n] -> output[...]
  bool live_out = true;   // written tensor is an output of the program
};

// One fused kernel.
struct KernelPlan {
  std::string name;                     // kernel name, from the `def`
  isl::union_set domain;                // iteration domains of every statement
  std::vector<MatmulStage> matmuls;     // in program order
  std::vector<PointwiseStage> epilogue; // in program order, after the matmuls

  // Number of batch dimensions (the same for every statement).
  int batch_rank() const;
  // The dims of every statement, matmuls first, in program order.
  std::vector<StatementDims> all_statements() const;
  // The matmuls grouped by k-loop (each matmul alone unless it shares A), in program order.
  std::vector<MatmulGroup> matmul_groups() const;
  // The group whose k-loop runs statement `statement`.
  MatmulGroup group_of(const std::string& statement) const;
};

}  // namespace polyfuse
