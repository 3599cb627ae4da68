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
//                     happens; the emulator checks it (bounds, alignment, pending cp.async
//                     destinations, races; throws EmulationError) and counts bytes, 32-byte
//                     sectors and shared-memory bank conflicts. Lanes'
//                     accesses are grouped into warp-wide requests by their order (per
//                     space) between two warp synchronisation points (see runtime/emu), so a
//                     predicated helper reports a 0-byte access when its predicate is off.
//   * warp_exchange() the single rendezvous of a warp-collective helper: every lane of the
//                     warp deposits `bytes` bytes; when all 32 lanes have arrived each lane
//                     gets a pointer to the 32 deposits (lane-major, `bytes` apart). The
//                     pointer stays valid until the lane's next warp_exchange. `what` names
//                     the collective (lanes arriving at different collectives is an error).
//   * dynamic_shared() the calling block's dynamic shared memory (128-byte aligned).
//   * async_copy()    one cp.async: the emulator checks it (alignment of both addresses to
//                     the copy size, bounds, races), counts it, and keeps it pending: its data
//                     lands in shared memory only when async_wait()/async_wait_all() of the
//                     issuing thread covers its group, and touching the destination earlier is
//                     an error. The helpers never copy cp.async data themselves.
//   * async_commit(), async_wait(), async_wait_all()
//                     cp.async.commit_group / wait_group N / wait_all of the calling thread
//                     (groups are per thread, as on the hardware).
//   * atomic_access() like access(), for an atomic read-modify-write (atomics of different
//                     blocks on the same address are not a race).
// Every hook may switch to another CUDA thread (the emulator's schedule decides): between two
// hook calls of a lane, other threads may run and touch memory. The emulator locates errors by
// the hooks' return addresses: a hook must be called from the helper's own code.
#pragma once
// Classic guard too: the emulation header includes this file and generated code may embed it.
#ifndef POLYFUSE_CUDA_HOST_HOOKS_H
#define POLYFUSE_CUDA_HOST_HOOKS_H

#if !defined(__CUDA_ARCH__) && !defined(__CUDACC_RTC__)

namespace pf_host {

enum Space : int { global_space = 0, shared_space = 1 };
enum Direction : int { load = 0, store = 1 };

// Checks and counts one lane's access of `bytes` bytes at `address`. bytes == 0 reports a
// lane whose predicate is off (the instruction is not executed: no access and no check; it
// keeps the lanes' requests aligned).
void access(Space space, Direction direction, const void* address, unsigned bytes);

// Checks and counts one atomic read-modify-write of `bytes` bytes at `address`.
void atomic_access(Space space, const void* address, unsigned bytes);

// cp.async{.ca,.cg}.shared.global [dst], [src], copy_bytes, src_bytes (copy_bytes 4, 8 or
// 16; src_bytes 0..copy_bytes, the rest of dst is zero-filled; no global read when 0).
void async_copy(void* dst, const void* src, unsigned copy_bytes, unsigned src_bytes);
// cp.async.commit_group: the calling thread's uncommitted copies become its newest group.
void async_commit();
// cp.async.wait_group N: completes all but the newest `pending_groups` committed groups of
// the calling thread (uncommitted copies stay pending).
void async_wait(unsigned pending_groups);
// cp.async.wait_all: async_commit() then async_wait(0).
void async_wait_all();

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
