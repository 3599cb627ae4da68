// The fusion planner of the GPU path: a def's statements partitioned into an ordered list
// of kernels, and the tensors that cross between kernels (temporaries in one workspace).
//
// A def that schedule/plan_from_program.h takes whole stays one fused kernel (the plan has
// that one kernel, and code generation is what it always was). Otherwise, in program order:
//   - a matmul starts a fused matmul kernel, which greedily takes each next statement while
//     plan_gpu_kernel still accepts the kernel's statements (prologues, epilogues); a matmul
//     that no tensor-core kernel takes (f32 operands, ...) is a reduction kernel like any sum;
//   - the statements left go to memory-bound kernels: consecutive pointwise statements over
//     one domain (the same indices and extents, every tensor written in the kernel accessed
//     at the statement's own indices) share one kernel, one element per thread; each
//     reduction that is not a matmul ends a kernel (one warp or block per written element,
//     codegen/cuda_memory_kernel.h) that also takes the pointwise kernel just before it when
//     that one runs over the reduction's whole domain (e(m, n) = exp(..) before s(m) +=! e(m, n):
//     e is computed in s's row loop);
//   - a reduction kernel then keeps taking the statements that follow while they form one row
//     chain (schedule/row_chain.h: reductions, element and row statements over the same rows):
//     softmax's max, exp, sum and divide are one kernel that reads each row once.
//   - two consecutive matmul kernels where the first writes only the second's 16-bit A operand
//     become one back-to-back kernel when the first's row panel fits on chip
//     (schedule/back_to_back.h); otherwise the first kernel's note says why not;
//   - a reduction that is a contraction of two f16 or bf16 tensors but not a matmul as written
//     (tensordot, several contracted or free indices, batch indices anywhere) runs as a GEMM over
//     grouped indices (schedule/contraction_to_gemm.h): a tensor-core kernel over a view of the
//     buffers, after permutation copies of the operands and before one of the output where the
//     layouts need them;
//   - a convolution (reads through index expressions) of f16 or bf16 tensors with C % 8 == 0 runs
//     as an implicit GEMM over the same kind of view (schedule/implicit_gemm.h), the pointwise
//     statements right after it its epilogues; other convolutions are reduction kernels whose note
//     says which rule kept them off.
// Each kernel records why it ends where it does (the cut's reason). A tensor that several
// kernels read or write (written by one, read or updated by later ones) and that is not a def
// output is a temporary: f32 in the workspace (a permuted GEMM operand, and a tensor a
// conversion writes, `A(m, h) = f16(...)`, keep their type) (never rounded to its type, which the reference allows). Multi-kernel plans need
// every size bound (the workspace's offsets are constants).
//
//   ProgramPlan plan = plan_program(program, recognize_idioms(program));
//   std::cout << to_string(plan);   // `polyfuse compile --emit=plan`
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frontend/idioms.h"
#include "frontend/program.h"
#include "polyfuse/gpu_target.h"

namespace polyfuse {

// What kind of code a planned kernel becomes.
enum class PlannedKernelKind {
  fused_matmul,   // the tensor-core kernel of the GPU passes (matmuls + prologues/epilogues)
  pointwise,      // memory-bound: one element per thread, grid-stride
  row_reduction,  // memory-bound: one reduction, one warp or one block per written element
  row_chain,      // memory-bound: reductions and pointwise statements over the same rows, a warp or block a row
  back_to_back,   // two chained matmuls in one tensor-core kernel, the first's result kept on chip (schedule/back_to_back.h)
  implicit_gemm,  // a convolution as a GEMM whose A tile is gathered from the input (schedule/implicit_gemm.h), over its view
  attention,      // scores, softmax and the product with V in one kernel, online softmax (schedule/attention.h)
};

// "fused matmul", "pointwise", "row reduction", "row chain", "back-to-back matmuls", "implicit GEMM", "attention".
const char* to_string(PlannedKernelKind kind);

struct PlannedKernel {
  PlannedKernelKind kind = PlannedKernelKind::pointwise;
  std::string name;                     // the __global__ function: "<def>_k<i>"
  std::vector<std::string> statements;  // ids, program order
  std::string cut;                      // why the next statement starts a new kernel ("" for the last)
  std::string note;                     // why a matmul runs as a reduction kernel (else "")
  std::string partition;                // a row chain's rows and threads (RowChain::describe), else ""
  // A step of a contraction run as a GEMM over grouped indices (schedule/contraction_to_gemm.h):
  // the kernel's own program (a view of the def's buffers or a permutation copy), and what it does.
  // Such a kernel takes no other statement; `statements` is the contraction for its GEMM, else empty.
  std::shared_ptr<Program> view;
  std::string step;
};

// A tensor that several kernels read or write, not an output of the def.
struct PlanTemporary {
  std::string tensor;
  std::vector<std::int64_t> dims;  // bound extents, outermost first
  std::int64_t offset = 0;         // bytes from the workspace's start (256-byte aligned)
  std::int64_t bytes = 0;
  ElementType type = ElementType::f32;  // f32, or a permuted GEMM operand's or a conversion's type
};

struct ProgramPlan {
  std::string def;
  std::vector<PlannedKernel> kernels;
  std::vector<PlanTemporary> temporaries;
  std::int64_t workspace_bytes = 0;
  F32Matmul f32_matmul = F32Matmul::tf32;  // how its f32 matmuls run (plan_program's `f32`)

  // One fused matmul kernel holding every statement: the def compiles as it always did.
  bool is_single_fused_kernel() const;
  // The temporary called `tensor`, or nullptr.
  const PlanTemporary* find_temporary(const std::string& tensor) const;
};

// Partitions `program` (see above). UserError for what no kernel can run yet (naming the
// statement), e.g. a multi-kernel plan with unbound sizes.
// `f32`: how matmuls with f32 operands run (a tensor-core kernel for tf32 and 3xtf32, a
// reduction kernel for f32).
ProgramPlan plan_program(const Program& program, const Idioms& idioms, F32Matmul f32 = F32Matmul::tf32);

// The def reduced to the statements of `plan.kernels[index]`, named after the kernel: tensors
// it only reads become inputs, tensors it writes that another kernel reads or writes become
// outputs, and workspace temporaries are f32. Its parameters (inputs, then
// outputs, in the def's tensor order) are the kernel's.
Program kernel_program(const Program& program, const ProgramPlan& plan, std::size_t index);

// The plan as text (`--emit=plan`): each kernel with its statements and cut, then the
// temporaries and the workspace.
std::string to_string(const ProgramPlan& plan, const Program& program);

}  // namespace polyfuse
