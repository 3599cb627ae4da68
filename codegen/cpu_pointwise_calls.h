// Pointwise work of a CPU block function as calls of kernels/cpu's Unary and Binary objects: one
// call, and a pointwise statement's expression tree evaluated into its target by such calls
// (intermediate values in the target when allowed, else in f32 scratch blocks; `u(x . y)` as one
// Binary call with `post`) — or, for a tree with two or more arithmetic operations on whole
// blocks, those in one loop of the generated code (emit_expression). codegen/cpu_block.cc writes
// the block functions around them.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "codegen/cpu_names.h"
#include "frontend/element_type.h"
#include "schedule/cpu_plan.h"

namespace polyfuse {

// How a primitive sees one operand or result: kernels/cpu's Operand, plus the pointer and
// leading dimension passed at the call.
struct CpuOperandView {
  std::string pointer;  // C++ expression
  std::string ld = "1";
  std::string layout = "Layout::row_major";
  std::string broadcast = "Broadcast::matrix";
  ElementType type = ElementType::f32;

  // "{Layout::row_major, DType::f32, Broadcast::matrix}"
  std::string operand() const;
};

// What emitting calls needs from the block function being written.
struct CpuCallSink {
  std::function<void(const std::string&)> line;  // one statement line of the body
  // A fresh name for a primitive object of statement `statement` doing `what`.
  std::function<std::string(const std::string& statement, const std::string& what)> object_name;
};

// The block pointers that a block function's pointwise statements declare in its outermost scope
// (CpuExpressionSink::block_pointer), one local per pointer and type; a `float*` serves reads too.
class CpuBlockPointers {
 public:
  // The local holding `pointer` as `type`; a new one's declaration goes to `line`.
  std::string local(const std::string& pointer, const std::string& type, const CpuNames& names,
                    const std::function<void(const std::string&)>& line);

 private:
  std::map<std::string, std::pair<std::string, std::string>> by_pointer_;  // the name and type
  std::set<std::string> taken_;
};

// The extents of a call as C++ expressions: the block ("rows" x "cols"), or one column of it
// ("rows" x "1": a value per row) or one row ("1" x "cols").
struct CpuCallShape {
  std::string m = "rows";
  std::string n = "cols";
};

// `out := op(in)` on the rows x cols block (or `shape`): a static Unary object and its call.
void emit_unary_call(const CpuCallSink& sink, const std::string& statement, const std::string& what,
                     const std::string& op, const CpuOperandView& in, const CpuOperandView& out,
                     const CpuCallShape& shape = {});

// `out := in0 op in1`, then `post` (a unary op: relu(C + bias) in one pass) when given.
void emit_binary_call(const CpuCallSink& sink, const std::string& statement, const std::string& op,
                      const CpuOperandView& in0, const CpuOperandView& in1, const CpuOperandView& out,
                      const std::string& post = "", const CpuCallShape& shape = {});

// Evaluating an expression also needs the views of its reads and scratch blocks.
struct CpuExpressionSink : CpuCallSink {
  std::function<CpuOperandView(const CpuAccess&)> view;  // a read of the block
  std::function<CpuOperandView()> scratch;              // a fresh f32 block buffer
  std::function<std::string(const std::string&)> variable;  // a local name (CpuNames::variable)
  // The local holding `pointer` (a C++ expression) in the block function's outermost scope, of
  // `type` ("const float*" to read, "float*" to write): declared by the first statement to ask,
  // shared by the others (a float* serves reads too), one name per pointer and type.
  std::function<std::string(const std::string& pointer, const std::string& type)> block_pointer;
};

// Calls computing `pointwise.expr` into `target`; `target_is_scratch`: intermediate values may go
// there too (an f32 target the expression does not read). An operand that depends on the row
// alone (`rsqrt(var(m) + 1e-5)` in a layer norm) or on the column alone is computed once per row
// (column) into the first column (row) of a scratch block and read as a broadcast vector: the
// same operations on the same values, rows (cols) times instead of rows x cols. Arithmetic (+ - *
// / max min, negation) on values that vary with both the row and the column is one loop over the
// block instead of a pass per operation (`Y = d * r(m) * gamma(n) + beta(n)`: one pass, not
// three) when that makes fewer passes: f16 and bf16 blocks read are widened and an f16 or bf16
// target rounded by a call each (a pass each). The same IEEE operations, so the same bits, as the
// generated code is built with -ffp-contract=off.
// `loops`: the arithmetic may be one loop (CpuPlan::pointwise_loops, and the expression does not
// read the target: the loop would write elements it reads elsewhere); false: calls only.
void emit_expression(const CpuExpressionSink& sink, const CpuPointwise& pointwise, const CpuOperandView& target,
                     bool target_is_scratch, bool loops = true);

}  // namespace polyfuse
