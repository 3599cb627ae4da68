// polyfuse device helpers, Hopper: a barrier of the 128 threads of one warpgroup, on an mbarrier
// (pf_mbarrier.cuh) — for warp-specialised kernels, where a block-wide __syncthreads would wait
// for the other warpgroups (the producer never reaches the consumers' epilogue).
//
//   WarpgroupBarrier sync{bar};   // bar: an mbarrier initialised with 128 arrivals
//   sync();                       // every thread of the warpgroup: arrive, then wait for the phase
//
// Each call completes one phase: the barrier counts its phases' parity itself, so every thread
// of the warpgroup must call it equally often. Arrive (release) and the completed wait (acquire)
// order the warpgroup's shared-memory accesses before the call before those after it.
#pragma once

#include "pf_base.cuh"
#include "pf_mbarrier.cuh"

namespace pf {
namespace sm90 {

struct WarpgroupBarrier {
  unsigned long long* bar;
  unsigned parity = 0;  // of the phase the next call completes

  PF_DEVICE void operator()() {
    mbarrier_arrive(bar);
    mbarrier_wait(bar, parity);
    parity ^= 1u;
  }
};

}  // namespace sm90
}  // namespace pf
