// polyfuse device helpers, Hopper: thread-block clusters (PTX ISA 9.7.13.3 "barrier.cluster",
// 9.7.9.21 "mapa", 9.7.13.15 "mbarrier.arrive" on shared::cluster, special registers
// %cluster_ctarank / %cluster_nctarank; sm_90). The blocks of a cluster (launched with the
// cluster dimension attribute) run at the same time and reach each other's shared memory.
//
//   cluster_ctarank(), cluster_nctarank()  the block's rank in its cluster, the cluster's blocks
//   cluster_address(p, rank)               mapa.shared::cluster.u32: the shared::cluster address
//                                          of the byte at `p` (own shared memory) in block `rank`
//   mbarrier_arrive_cluster(address)       mbarrier.arrive.shared::cluster.b64 (.release, the
//                                          default .cta scope, as CUTLASS's ClusterBarrier::arrive:
//                                          no MEMBAR in the k-loop) on the mbarrier at a
//                                          shared::cluster address (a consumer releasing a stage
//                                          in its peer, whose reads wgmma.wait_group retired)
//   cluster_arrive(), cluster_arrive_relaxed(), cluster_wait(), cluster_sync()
//                                          barrier.cluster.arrive{.release,.relaxed}.aligned /
//                                          barrier.cluster.wait.acquire.aligned: every thread of
//                                          the cluster; cluster_sync() = arrive + wait
//
// Rules the emulator checks (runtime/emu/src/cluster.h): a peer's mbarrier is used only after
// its init is ordered before the use (fence.mbarrier_init, then cluster_sync() in both
// blocks), and a block exits only once every remote operation into its shared memory is
// ordered before the exit (cluster_sync() of every thread after its last one).
#pragma once

#include "pf_base.cuh"
#include "pf_sm90.cuh"

namespace pf {
namespace sm90 {

PF_DEVICE unsigned cluster_ctarank() {
#if PF_SM90_PATH
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
#elif PF_DEVICE_PATH
  asm volatile("trap;");  // clusters need sm_90
  return 0;
#elif PF_HOST_PATH
  return ::pf_host::cluster_ctarank();
#else
  return 0;
#endif
}

PF_DEVICE unsigned cluster_nctarank() {
#if PF_SM90_PATH
  unsigned n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  return n;
#elif PF_DEVICE_PATH
  asm volatile("trap;");
  return 1;
#elif PF_HOST_PATH
  return ::pf_host::cluster_nctarank();
#else
  return 1;
#endif
}

PF_DEVICE unsigned cluster_address(const void* p, unsigned rank) {
#if PF_SM90_PATH
  unsigned address;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(address) : "r"(shared_window_address(p)), "r"(rank));
  return address;
#elif PF_DEVICE_PATH
  asm volatile("trap;");
  return 0;
#elif PF_HOST_PATH
  return ::pf_host::cluster_map_address(p, rank);
#else
  return 0;
#endif
}

PF_DEVICE void mbarrier_arrive_cluster(unsigned address) {
#if PF_SM90_PATH
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(address) : "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");
#elif PF_HOST_PATH
  ::pf_host::mbarrier_arrive_cluster(address);
#endif
}

PF_DEVICE void cluster_arrive() {
#if PF_SM90_PATH
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");
#elif PF_HOST_PATH
  ::pf_host::cluster_arrive(false);
#endif
}

PF_DEVICE void cluster_arrive_relaxed() {
#if PF_SM90_PATH
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");
#elif PF_HOST_PATH
  ::pf_host::cluster_arrive(true);
#endif
}

PF_DEVICE void cluster_wait() {
#if PF_SM90_PATH
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");
#elif PF_HOST_PATH
  ::pf_host::cluster_wait();
#endif
}

PF_DEVICE void cluster_sync() {
  cluster_arrive();
  cluster_wait();
}

}  // namespace sm90
}  // namespace pf
