// A row chain fused into the matmul kernel's epilogue (schedule/fused_row_chain.h: softmax,
// LayerNorm, RMSNorm after a GEMM) on the sm_90a kernel (codegen/hopper_gemm_kernel.h): the tile
// spans the row (BN = the row rounded up to a power of two, at most 256), each consumer warpgroup
// stages its 64 x BN accumulators in shared memory, and the chain — the head's pointwise
// epilogue and the chain's statements, one row chain (schedule/row_chain.h) — runs on them with
// one warp a row (codegen/row_chain_kernel.h's staged_row_chain): the matmul's result never
// reaches memory unless it is an output of the def.
#pragma once

#include <string>
#include <variant>

#include "codegen/main_loop_choice.h"
#include "frontend/program.h"
#include "schedule/fused_row_chain.h"
#include "schedule/kernel_plan.h"
#include "schedule/row_chain.h"

namespace polyfuse {

struct HopperRowChain {
  RowChain chain;           // the head's epilogue statements, then the chain's
  std::string staged;       // the matmul's result, read from the staged accumulators
  std::int64_t row_length;  // the row's columns
};

// The chain of `program` (whose fused row chain is `fused`) on the staged accumulators of the
// kernel of `plan`, or why it does not run there (one matmul whose result the statements read
// only at the element; the statements one row chain with one warp a row).
std::variant<HopperRowChain, std::string> hopper_row_chain(const Program& program, const KernelPlan& plan,
                                                           const FusedRowChain& fused);

// `choice` (choose_main_loop's for the kernel of `plan` with `options`) where `program` has a fused
// row chain: the wgmma kernel keeps it where hopper_row_chain takes the chain, else the mma.sync
// main loop runs the chain on its fragments and the fallback reason says why.
MainLoopChoice with_fused_row_chain(const Program& program, const KernelPlan& plan, const GpuOptions& options,
                                    MainLoopChoice choice);

// The epilogue line of --emit=config for the wgmma kernel of `plan`: the row chain's, or the
// pointwise epilogue's (describe_hopper_epilogue).
std::string describe_sm90a_epilogue(const Program& program, const KernelPlan& plan);

}  // namespace polyfuse
