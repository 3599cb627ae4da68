// Host hooks: the small interface through which the host (emulation) path of the
// kernels/cuda helpers talks to a CUDA-on-CPU emulator.
//
// kernels/cuda only declares these functions; runtime/emu implements them (the
// dependency arrow points from runtime to kernels). They exist only when a kernel is
// compiled as C++ for the emulator (POLYFUSE_EMU defined, no __CUDA_ARCH__); device
// compilations (nvcc, NVRTC) never see them (the nvcc host pass sees unused declarations).
//
// Contract, seen from the calling lane (one fiber = one CUDA thread):
//   * access()        every global/shared memory access of a helper is reported before it
//                     happens; the emulator bounds-checks it (throws on a bad access) and
//                     counts bytes, 32-byte sectors and shared-memory bank conflicts. Lanes'
//                     accesses are grouped into warp-wide requests by their order (per
//                     space) between two warp synchronisation points (see runtime/emu), so a
//                     predicated helper reports a 0-byte access when its predicate is off.
//   * warp_exchange() the single rendezvous of a warp-collective helper: every lane of the
//                     warp deposits `bytes` bytes; when all 32 lanes have arrived each lane
//                     gets a pointer to the 32 deposits (lane-major, `bytes` apart). The
//                     pointer stays valid until the lane's next warp_exchange. `what` names
//                     the collective (lanes arriving at different collectives is an error).
//   * dynamic_shared() the calling block's dynamic shared memory (128-byte aligned).
#pragma once
// Classic guard too: the emulation header includes this file and generated code may embed it.
#ifndef POLYFUSE_CUDA_HOST_HOOKS_H
#define POLYFUSE_CUDA_HOST_HOOKS_H

#if !defined(__CUDA_ARCH__) && !defined(__CUDACC_RTC__)

namespace pf_host {

enum Space : int { global_space = 0, shared_space = 1 };
enum Direction : int { load = 0, store = 1 };

// Checks and counts one lane's access of `bytes` bytes at `address`. bytes == 0 reports a
// lane whose predicate is off (no access; keeps the lanes' requests aligned).
void access(Space space, Direction direction, const void* address, unsigned bytes);

// Warp rendezvous: deposits `bytes` bytes from `mine`, returns the 32 lanes' deposits.
const void* warp_exchange(const char* what, const void* mine, unsigned bytes);

// Lane index within the warp (0..31) and warp index within the block of the caller.
unsigned lane_id();
unsigned warp_id();

// The calling block's dynamic shared memory and its declared size in bytes.
unsigned char* dynamic_shared();
unsigned long long dynamic_shared_bytes();

}  // namespace pf_host

#endif
#endif  // POLYFUSE_CUDA_HOST_HOOKS_H
