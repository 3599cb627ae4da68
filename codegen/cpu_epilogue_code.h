// A matmul's last touch done by its BRGEMM (CpuMatmul::epilogue, schedule/cpu_epilogue.h) as the
// generated code writes it: the kernel's `.epilogue = {...}` field and the call's EpilogueArgs.
#pragma once

#include <string>

#include "codegen/cpu_pointwise_calls.h"
#include "schedule/cpu_plan.h"

namespace polyfuse {

struct CpuEpilogueCode {
  std::string config;  // ", .epilogue = {.bias = BiasAlong::n, .post = UnaryOp::relu}"
  std::string args;    // "EpilogueArgs{.bias = bias + n0}", or "" (no operands)
  std::string what;    // for comments: "+ bias along n, relu"
};

// `epilogue`'s code, given the views at the block of its bias and addend (null where it has none)
// and of the output D when the result goes there rather than to the BRGEMM's C (else null).
CpuEpilogueCode cpu_epilogue_code(const CpuEpilogue& epilogue, const CpuOperandView* bias, const CpuOperandView* addend,
                                  const CpuOperandView* separate_output);

}  // namespace polyfuse
