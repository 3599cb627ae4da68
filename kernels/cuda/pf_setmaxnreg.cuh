// polyfuse device helpers, Hopper instruction layer: setmaxnreg (PTX ISA 9.7.17.1
// "setmaxnreg"; sm_90a), the register hand-over between the warpgroups of a warp-specialised
// kernel.
//
//   setmaxnreg_dec<N>()   setmaxnreg.dec.sync.aligned.u32 N: the calling warp's threads give
//                         their registers above N back to the block's pool
//   setmaxnreg_inc<N>()   setmaxnreg.inc.sync.aligned.u32 N: they take registers from the pool
//                         up to N per thread (waiting until the pool has them)
//
// N is a multiple of 8 in 24 .. 256. .sync.aligned: all threads of a warpgroup execute the same
// setmaxnreg. ptxas honours it only in a kernel with __launch_bounds__(threads, 1) (or maxnreg):
// it needs the register count at entry (C7508 otherwise). In a warp-specialised kernel the
// producer warpgroup decreases first and the consumer warpgroups increase: the pool is the
// block's registers at launch (threads x the entry count), so the final counts must fit 64K
// registers over the block (the emulator checks the three rules: runtime/emu setmaxnreg_hooks).
#pragma once

#include "pf_base.cuh"
#include "pf_sm90.cuh"

namespace pf {
namespace sm90 {

template <int N> PF_DEVICE void setmaxnreg_dec() {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg: a multiple of 8 in 24 .. 256");
#if PF_SM90A_PATH
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N));
#elif PF_DEVICE_PATH
  asm volatile("trap;");  // setmaxnreg needs sm_90a
#elif PF_HOST_PATH
  ::pf_host::setmaxnreg(N, false);
#endif
}

template <int N> PF_DEVICE void setmaxnreg_inc() {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg: a multiple of 8 in 24 .. 256");
#if PF_SM90A_PATH
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N));
#elif PF_DEVICE_PATH
  asm volatile("trap;");
#elif PF_HOST_PATH
  ::pf_host::setmaxnreg(N, true);
#endif
}

}  // namespace sm90
}  // namespace pf
