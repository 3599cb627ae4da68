// Software-pipelined fragments (issue 19 item 2), CUTLASS 2.x's MmaMultistage order for the
// sm_80 mma.sync main loop generated from the schedule tree: two fragment register sets, so
// that k-slice j+1's ldmatrix loads are issued before (and run under) k-slice j's MMAs, across
// the k-step boundary too. The ring's wait and its one barrier move from the top of k-step i
// to just before its last k-slice: there k-step i+1's copies have landed and every warp has
// loaded k-step i's last fragments, so k-step i+1's first k-slice loads under k-step i's last
// MMAs, and the copies of k-step i+1 (issued at its top) may overwrite the stage k-step i read.
//
//   fill:  wait, barrier; fragments of k-step 0, k-slice 0 -> set 0
//   k-step i: copies of k-step i+S-1, commit;
//     k-slice j: [j == last: wait, barrier]; fragments of the next k-slice -> set (j+1) % 2;
//                MMAs on set j % 2
//
// The full blocks' k-step loop takes it; the edge blocks' body (bounds and predicates) and a K
// tail's k-step after the loop keep one set (set 0 of the two).
//
// The printer does the reordering (codegen/c_ast_printer.h, AstPrintHooks::FragmentPipeline);
// this file decides where it applies and says why (--emit=config), and gives the printer
// the statements' roles. The last k-step's loads of the "next" k-slice read a stage no copy
// writes any more (harmless, unused: CUTLASS does the same).
#pragma once

#include <string>

#include "codegen/c_ast_printer.h"
#include "codegen/cuda_kernel_layout.h"
#include "codegen/cuda_statements.h"
#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

struct FragmentPipelineChoice {
  bool on = false;
  std::string why;  // "two fragment sets: ..." or why one set
};

// Why the k-loops of `plan`'s kernel cannot take two fragment sets by their shape ("" when they
// can): they need a ring of at least 2 stages, 16-bit m16n8k16 fragments and an even number of
// k-slices per k-step. In a k-loop of several matmuls that share A (swiglu's), every matmul's B
// fragments are loaded before the k-slice's MMAs, each into its own arrays (CUTLASS's
// DualMmaMultistage: A, B0 and B1 double-buffered). The register model (layout.register_model,
// codegen/register_model.h) then says whether they fit.
std::string fragment_pipeline_refusal(const KernelPlan& plan, const GpuOptions& o, const CudaKernelLayout& layout);

// Whether they take two fragment sets (the shape allows and the register model fits them), and why.
FragmentPipelineChoice choose_fragment_pipeline(const KernelPlan& plan, const GpuOptions& o, const CudaKernelLayout& layout);

// The printer's hooks for the kernel of `context` (whose layout takes two sets).
AstPrintHooks::FragmentPipeline fragment_pipeline_hooks(const CudaStatementContext& context);

}  // namespace polyfuse
