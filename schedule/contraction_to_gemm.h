// General contractions as (batched) GEMMs over grouped indices, the cuTENSOR model.
//
// A sum of a product of two tensor reads, `O(..) +=! X(..) * Y(..)` (or `+=`), whose indices
// are plain and distinct in each access, groups its indices in four classes:
//   batch = in X, in Y and in O      M = in X and O only (A's free indices)
//   N     = in Y and O only          K = in X and Y only (contracted)
// The operand whose free indices come first in O is A (rows), the other B (columns). Each
// group is one GEMM dimension whose extent is the product of its indices' extents: O is the
// matrix O[batch][M][N], A is A[batch][M][K] (row-major) or A[batch][K][M] (column-major), B is
// B[batch][K][N] or B[batch][N][K] — as long as the group's indices are adjacent and in one
// order in the tensor's row-major layout, that matrix is only another view of the same buffer
// (no copy). An operand in any other order is first copied into that order (a permutation copy
// into the plan's workspace, in the operand's own type); an output in another order is
// computed as O[batch][M][N] in the workspace (f32) and then permuted into O.
//
//   `O(a, b, c) +=! X(a, b, k, l) * Y(k, l, c)`  ->  M=(a, b) N=(c) K=(k, l) batch=(),
//   the GEMM `O(m, n) +=! X(m, k) * Y(k, n)` over X as f16(A*B, K*L): no copy.
//
// Each step is a def of its own (a view program) written in the language and compiled by the
// front end, with every size a literal: plan_program (schedule/program_plan.h) makes each one
// a kernel of the plan, the GEMM one a tensor-core kernel when plan_gpu_kernel takes it.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/program.h"

namespace polyfuse {

// How one contraction statement is grouped, or why it is not a GEMM.
struct ContractionGrouping {
  bool is_gemm = false;            // the statement is a contraction with M, N and K not empty
  std::string why_not;             // when !is_gemm: the rule it breaks
  std::vector<std::string> batch;  // index names, in O's order
  std::vector<std::string> m;      // A's free indices, in O's order
  std::vector<std::string> n;      // B's free indices, in O's order
  std::vector<std::string> k;      // contracted indices, in the order A and B use after any copy
  int a_read = -1;                 // Statement::reads index of A (and of B)
  int b_read = -1;
  bool a_column_major = false;     // A viewed as [batch][K][M]
  bool b_column_major = false;     // B viewed as [batch][N][K]
  bool a_permuted = false;         // A needs a permutation copy into [batch][M][K]
  bool b_permuted = false;         // B needs a permutation copy into [batch][K][N]
  bool output_permuted = false;    // O is written from an [batch][M][N] temporary
  // A is a convolution's input read through index expressions (schedule/implicit_gemm.h): the
  // view's A, `<input>_im2col` [M][K], is gathered by the kernel's copy, never in memory.
  bool a_gathered = false;
  // A grouped convolution's group indices (g of `F(g, k, r, s, c)`): N's leading indices, N = (g,
  // k). Its GEMM is block-diagonal: each group is a GEMM of its own (its output channels, its
  // share of the input's channels), which the implicit-GEMM kernel runs on blockIdx.z.
  std::vector<std::string> conv_groups;

  // "M=(a, b) N=(c) K=(k, l) batch=()" (and ", one GEMM per group (g)" for conv_groups).
  std::string groups() const;
};

// The grouping of `statement` of `program` (see above). Not a GEMM: a statement that is not a
// sum of a product of two plain reads, an index read by one operand only and summed, an index
// of O in neither operand, an empty M, N or K group, or both factors reading one tensor.
ContractionGrouping group_contraction(const Program& program, const Statement& statement);

// One step of a contraction's plan: a view program (its def named after the step) and what it is.
struct ContractionStep {
  enum class Kind { permute_operand, gemm, permute_output } kind = Kind::gemm;
  std::shared_ptr<Program> view;  // one statement; every size a literal
  std::string description;       // for --emit=plan ("X copied into [M][K] order", "the GEMM ...")
};

// A workspace tensor between the steps (a permuted operand, or the GEMM's unpermuted output).
struct ContractionTemporary {
  std::string tensor;
  ElementType type = ElementType::f32;
  std::vector<std::int64_t> dims;
};

struct ContractionPlan {
  std::vector<ContractionStep> steps;  // in launch order: operand copies, the GEMM, the output copy
  std::vector<ContractionTemporary> temporaries;
};

// A pointwise statement after the contraction, written in the GEMM view's grouped indices so
// that the GEMM kernel computes it as an epilogue: `D(a, b, c) = relu(O(a, b, c) + bias(c))`
// with M=(a, b) N=(c) is `D(m, n) = relu(O(m, n) + bias(n))` over D as (A*B, C) and bias as (C).
struct GroupedEpilogue {
  std::string statement;  // its id
  std::string text;       // the statement in grouped indices
  std::map<std::string, std::vector<std::int64_t>> dims;  // each tensor it accesses: its grouped view
};

// `epilogue` in the grouped indices of `statement`'s GEMM, or nullopt: the output is permuted,
// `epilogue` is not pointwise over the contraction's written indices (same names and extents),
// or one of its accesses is not a sequence of whole groups (each group's indices adjacent and in
// O's order) or reads outside its tensor.
std::optional<GroupedEpilogue> group_epilogue(const Program& program, const Statement& statement,
                                              const ContractionGrouping& grouping, const Statement& epilogue);

// The pointwise statements right after contraction `statement` that its GEMM takes as epilogues
// (group_epilogue, in program order up to the first that is not one), each tensor viewed one way,
// A and B not among them.
std::vector<GroupedEpilogue> epilogues_after(const Program& program, const Statement& statement,
                                             const ContractionGrouping& grouping);

// Of the tensors that `statement` and `epilogues` write, the def's outputs and those another
// statement accesses: those the GEMM's view must write to memory.
std::set<std::string> kept_tensors(const Program& program, const Statement& statement,
                                   const std::vector<GroupedEpilogue>& epilogues);

// The steps of `statement`, grouped as `grouping` says (is_gemm), with every size bound, its GEMM
// also computing `epilogues` (in order; only without an output permutation). The views declare
// each tensor with its type in memory (f32 for the def's temporaries); of the tensors the GEMM
// kernel writes, those in `kept` are its outputs and the others stay inside it. Workspace
// tensors are named after O (`O_A`, `O_B`, `O_gemm`), made unique against the program's.
ContractionPlan plan_contraction(const Program& program, const Statement& statement,
                                 const ContractionGrouping& grouping, const std::vector<GroupedEpilogue>& epilogues,
                                 const std::set<std::string>& kept);

}  // namespace polyfuse
