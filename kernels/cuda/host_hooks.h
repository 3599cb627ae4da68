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
//   * gather_out_of_range() a gather's index tensor held a position outside the gathered
//                     dimension: the emulator's error (never returns).
//   * atomic_access() like access(), for an atomic read-modify-write (atomics of different
//                     blocks on the same address are not a race).
//   * wgmma_*, mbarrier_*, fence_*, tma_*, bulk_*
//                     the Hopper operations (pf_wgmma, pf_mbarrier, pf_tma): the emulator runs
//                     them as the PTX ISA states them (asynchronous wgmma and TMA, mbarrier
//                     phases and transaction counts, the generic/async proxy fence) and checks
//                     them (runtime/emu: wgmma_state, mbarrier, tma_copy, async_proxy).
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

// A gather's index (pf::gather_index) is outside its dimension: throws the emulator's error
// naming the thread, `tensor`, its 1-based `dimension`, the `position` and the `extent`.
void gather_out_of_range(const char* tensor, int dimension, long long position, long long extent);

// Lane index within the warp (0..31) and warp index within the block of the caller.
unsigned lane_id();
unsigned warp_id();

// The calling block's dynamic shared memory and its declared size in bytes.
unsigned char* dynamic_shared();
unsigned long long dynamic_shared_bytes();

// ---- Hopper (sm_90 / sm_90a): the helpers of pf_wgmma, pf_mbarrier and pf_tma --------------
// Shared-memory operands are pointers into dynamic_shared() (descriptors hold offsets from it).

// One wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16} of the calling thread (PTX ISA
// 9.7.15.5.2), with FP8 operands m64nNk32.f32.{e4m3,e5m2}.{e4m3,e5m2} (fp8_a, fp8_b; both
// K-major, from shared memory), or with TF32 ones m64nNk8.f32.tf32.tf32 (tf32; both K-major,
// from shared memory). All 128 threads of a warpgroup (4 consecutive warps from a warp
// index that is a multiple of 4) call it together; `d` is the thread's N/2 accumulators, kept by
// the emulator until the wgmma.wait_group that retires the operation writes the result back.
struct WgmmaOp {
  unsigned n;                  // N (8..256, a multiple of 8)
  unsigned bf16;               // 0: .f16 A and B, 1: .bf16
  unsigned long long desc_a;   // A's matrix descriptor (unless a_in_registers)
  unsigned long long desc_b;   // B's matrix descriptor
  unsigned a_regs[4];          // the thread's A fragment (a_in_registers)
  unsigned a_in_registers;     // 1: the register form (A from registers)
  unsigned trans_a, trans_b;   // imm-trans-a / imm-trans-b: 0 K-major, 1 M/N-major
  unsigned scale_d;            // 0: D = A*B, 1: D = A*B + D
  unsigned fp8_a, fp8_b;       // 0: 16-bit operands (bf16 says which); 1: .e4m3, 2: .e5m2 (k32)
  unsigned tf32;               // 1: .tf32 A and B (k8): f32 values of which the multiply reads 19 bits
};
void wgmma_mma_async(const WgmmaOp& op, float* d, const void* a_fragment);
// wgmma.fence / commit_group / wait_group N of the calling thread.
void wgmma_fence();
void wgmma_commit();
void wgmma_wait(unsigned pending_groups);
// Ordinary code reads or writes the wgmma registers at `registers` (an accumulator or an A
// fragment): an error while a wgmma that uses them is in flight.
void wgmma_register_access(const void* registers);

// mbarrier (PTX ISA 9.7.13.15) on the 8-byte object at `bar` in shared memory.
void mbarrier_init(void* bar, unsigned count);
unsigned long long mbarrier_arrive(void* bar, unsigned count);
unsigned long long mbarrier_arrive_expect_tx(void* bar, unsigned tx_bytes);
void mbarrier_expect_tx(void* bar, unsigned tx_bytes);
// try_wait.parity (blocking: may suspend the thread until the phase completes) / test_wait.
bool mbarrier_wait_parity(void* bar, unsigned parity, bool blocking);
// fence.proxy.async.shared::cta and fence.mbarrier_init.release.cluster of the calling thread.
void fence_proxy_async();
void fence_mbarrier_init();

// setmaxnreg.{inc,dec}.sync.aligned.u32 `count` of the calling thread (PTX ISA 9.7.17.1): the
// emulator checks that the warpgroup's threads execute the same one, the count, and that the
// block's final counts fit its 64K registers.
void setmaxnreg(unsigned count, bool increase);

// TMA (PTX ISA 9.7.9.27 cp.async.bulk.tensor): `tensor_map` points at the 128-byte map the
// emulator's encoder wrote (runtime/tma); `coords` has `rank` signed element coordinates.
void tma_load(void* dst, const void* tensor_map, const int* coords, unsigned rank, void* bar);
void tma_store(const void* tensor_map, const int* coords, unsigned rank, const void* src);
// cp.async.bulk.commit_group / wait_group{.read} N of the calling thread (TMA stores).
void bulk_commit();
void bulk_wait(unsigned pending_groups, bool read_only);

// ---- thread-block clusters (sm_90; pf_cluster.cuh) -------------------------------------------
// A shared::cluster address (mapa) is a 32-bit value the emulator decodes into (block rank,
// offset in that block's dynamic shared memory); a shared::cta address (shared_window_address)
// is one of the caller's own block, as on the hardware.

// %cluster_ctarank and %cluster_nctarank of the caller.
unsigned cluster_ctarank();
unsigned cluster_nctarank();
// mapa.shared::cluster.u32: the address of the byte at `p` (in the caller's block) in block
// `rank`'s shared memory.
unsigned cluster_map_address(const void* p, unsigned rank);
// mbarrier.arrive.shared::cluster.b64 on the mbarrier at shared::cluster `address` (modelled as a
// release the waiting thread acquires, like a local arrive).
void mbarrier_arrive_cluster(unsigned address);
// cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster:
// the box lands at dst's offset in every block of `mask` (bit r: rank r) and completes its bytes
// on the mbarrier at bar's offset in each of them.
void tma_load_multicast(void* dst, const void* tensor_map, const int* coords, unsigned rank, void* bar,
                        unsigned short mask);
// barrier.cluster.arrive{.relaxed,.release} and barrier.cluster.wait{.acquire} of the caller.
void cluster_arrive(bool relaxed);
void cluster_wait();

}  // namespace pf_host

#endif
#endif  // POLYFUSE_CUDA_HOST_HOOKS_H
