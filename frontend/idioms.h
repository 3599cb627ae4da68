// Idiom recognition: which statements are matmul contractions, batch-reduce matmuls
// or pointwise operations, and how pointwise statements feed or consume matmuls.
// This is what the scheduler consumes to build fused kernels.
//
// A matmul is a reduction (`+=!` or `+=`) whose right-hand side is a product of two
// factors, each a pointwise function of one operand read (the read alone, or a prologue
// such as `relu(A(m, k))`) and of reads broadcast against it, indexed by a subset of its
// indices (`relu(A(m, k) * g(k))`, `A(m, k) * s(m) + Z(m, k)`):
//
//   C(b.., i, j)  +=!|+=  f(A(b.., i, l) or A(b.., l, i)) * g(B(b.., l, j) or B(b.., j, l))
//
// The written tensor's last two indices are m = i (rows) and n = j (columns), the
// indices before them are batch indices, shared in the same order by A and B; the one
// reduction index is k = l. The factor holding m is A, the one holding n is B, in
// whichever order they are written. Layouts come from the access relations:
//   A row-major    A(.., m, k): its last index is k     A column-major  A(.., k, m)
//   B row-major    B(.., k, n): its last index is n     B column-major  B(.., n, k)
// A batch-reduce matmul has a second reduction index r placed among the leading
// (batch) indices of both A and B: `C(m, n) +=! A(r, m, k) * B(r, k, n)`.
//
// Only sums make matmuls: a `*=!`, `max=!` or `min=!` statement (or `*=`, `max=`,
// `min=`) is `other` whatever its indices.
//
// A pointwise statement has no reduction index (`=`, or `+=`/`+=!` without one). It is
// a prologue of matmul M if its result reaches one of M's operands through RAW
// dependences (directly or through other pointwise statements), and an epilogue of M
// if it consumes M's result that way. It can be both (between two matmuls).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontend/dependences.h"
#include "frontend/expr.h"
#include "frontend/program.h"

namespace polyfuse {

// Storage order of a matmul operand, from its access relation (see above).
enum class MatrixLayout { row_major, column_major };

// The spelling of `layout` ("row-major", "column-major").
std::string_view to_string(MatrixLayout layout);

// One factor of a matmul product.
struct MatmulOperand {
  int read = -1;               // index into Statement::reads of the operand's read
  std::string tensor;          // the tensor read
  MatrixLayout layout = MatrixLayout::row_major;
  bool has_prologue = false;   // the factor is a function of the read, not the read alone
                               // (it may read other tensors at a subset of the read's indices)
  Expr factor;                 // the whole factor expression (the read itself if no prologue)
};

// The indices and operands of a matmul or batch-reduce matmul statement.
struct MatmulIdiom {
  std::vector<std::string> batch;  // batch indices (of C, A and B), outermost first
  std::string m;                   // rows of C (second-to-last index of C)
  std::string n;                   // columns of C (last index of C)
  std::string k;                   // the contracted index
  std::string reduce_batch;        // r of a batch-reduce matmul; empty for a matmul
  MatmulOperand a;                 // the operand indexed by m and k
  MatmulOperand b;                 // the operand indexed by k and n
  bool zero_init = true;           // `+=!` (C starts at zero) rather than `+=`
  bool a_is_left = true;           // A is the left factor of the product in the source
};

// What a statement is.
enum class IdiomKind {
  matmul,               // C(b.., m, n) += A * B, see MatmulIdiom
  batch_reduce_matmul,  // C(b.., m, n) += sum over r of A(r, ..) * B(r, ..)
  pointwise,            // no reduction index
  other,                // a reduction that is neither (a row sum, a matrix-vector product), or a
                        // statement reading through index expressions (a convolution)
};

// The spelling of `kind` ("matmul", "batch-reduce matmul", "pointwise", "other").
std::string_view to_string(IdiomKind kind);

// The idiom of one statement.
struct StatementIdiom {
  std::string statement;                 // the statement's id
  IdiomKind kind = IdiomKind::other;
  MatmulIdiom matmul;                    // for matmul and batch_reduce_matmul
  std::vector<std::string> prologue_of;  // pointwise: matmuls whose operands it produces
  std::vector<std::string> epilogue_of;  // pointwise: matmuls whose results it consumes
  std::string reason;                    // other: why it is not a matmul
};

// The idioms of a program: one entry per statement, in program order.
struct Idioms {
  std::vector<StatementIdiom> statements;

  // The entry of statement `id`, or nullptr.
  const StatementIdiom* find(std::string_view id) const;
};

// Why a compiler refuses a statement of kind `other`, naming the rule, for `target` ("the
// GPU path", "the CPU target"): "this reduction is not a matmul (REASON); reductions that
// are not matmuls (row reductions: ...) are not supported yet on TARGET: ...".
std::string unsupported_reduction(const StatementIdiom& idiom, std::string_view target);

// Classifies every statement of `program`; prologue/epilogue relations follow the RAW
// dependences in `dependences`.
Idioms recognize_idioms(const Program& program, const Dependences& dependences);

// Same, from the program's flow dependences alone (flow_statement_pairs: computed once per
// program, however often the planner asks).
Idioms recognize_idioms(const Program& program);

}  // namespace polyfuse
