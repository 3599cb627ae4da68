// The code of a convolution block that skips the border taps of its BRGEMM's outer batch tap
// (schedule/cpu_conv_border.h): the taps [first, last) that read the input proper at the
// block's batch index, a kernel for each count of taps some block keeps, and the check that the
// thread's filter panel is finite at the taps left out. Part of the block function
// codegen/cpu_block.h writes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "codegen/cpu_names.h"
#include "schedule/cpu_plan.h"

namespace polyfuse {

struct CpuBorderTapsCode {
  std::string lines;     // statements of the block function before the call (two spaces indented)
  std::string kernel;    // the kernel to call: a `const Brgemm&` that `lines` declares
  std::string first;     // the variable of the first tap: A and B move on by it times the tap's strides
};

// The statements that set the variables `first` and `last` ("r_first", "r_last") to the taps of
// `tap` (its border set) that the block whose batch index border->batch is `batch_variable`
// computes: those that read the input proper, or every tap where `finite_taps` (the panel's bits)
// lacks one of the others, or fewer than `fewest` taps are left. A tap that is a loop of calls
// (f16, bf16) runs from first to last (fewest 2 where its last call is a kernel of its own: the
// first call must not be the last).
struct CpuBorderRange {
  std::string lines;  // two spaces indented
  std::string first, last;
};
CpuBorderRange emit_border_range(const CpuConvTap& tap, const std::string& batch_variable,
                                 const std::string& finite_taps, const CpuNames& names, std::int64_t fewest = 1);

// `tap` (its border set), the BRGEMM's outer batch, of the block whose batch index border->batch is `batch_variable`;
// `kernel` names the kernel of every tap, `config(count)` gives the configuration of a kernel of
// `count` taps (its text in braces), `finite_taps` is the expression of the panel's bits (bit t:
// finite at tap t), and `object_name(what)` names a kernel object.
CpuBorderTapsCode emit_border_taps(const CpuConvTap& tap, const std::string& batch_variable, const std::string& kernel,
                                   const std::function<std::string(std::int64_t)>& config,
                                   const std::string& finite_taps,
                                   const std::function<std::string(const std::string&)>& object_name,
                                   const CpuNames& names);

// The statements (indented by `indent`) that set `finite_taps`, the bits of a panel at `data`
// (of `type`: f32, or f16/bf16 bit patterns) whose tap t starts at data + t * tap.b_stride, for
// the taps a block may leave out.
std::string finite_taps_check(const CpuConvTap& tap, const std::string& data, ElementType type,
                              const std::string& finite_taps, const std::string& indent, const CpuNames& names);

}  // namespace polyfuse
