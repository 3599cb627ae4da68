// The cluster test kernels of the emulator tests, valid CUDA for sm_90a (compiled by nvcc
// in the static check emu_cluster_kernels_nvcc_sm90a) and emulator C++ (emu_cluster_kernels.cc
// includes this file after polyfuse_emu/cuda_emulation.h): a two-block pipeline shaped like the
// sm_90a GEMM's with --cluster (each producer loads half of a stage and multicasts it to both
// blocks; a stage is free once the consumers of both blocks released it), with a switch for
// each planted bug the emulator must report (emu_cluster_kernels.h: ClusterBug).
#include "polyfuse_cuda.cuh"

#include "emu_cluster_bugs.h"

namespace {
using namespace pf::sm90;
using emu_cluster::ClusterBug;
using emu_cluster::ClusterMisuse;
using emu_cluster::kBoxBytes;
using emu_cluster::kStageBytes;

constexpr int kStages = 2, kRing = 1024;  // the ring after the mbarriers

}  // namespace

extern "C" {

// Threads 0 .. 31: thread 0 is the producer; threads 32 .. 63 consume. Stage it % 2 holds rows
// 32 it .. 32 it + 31 of the tensor: block r loads rows 32 it + 16 r .. + 15 into half r of the
// stage of both blocks (multicast), so each block's "full" expects the whole stage's bytes.
__global__ void cluster_ring(const __grid_constant__ TensorMap map, unsigned char* out, int steps, int bug_value) {
  const ClusterBug bug = static_cast<ClusterBug>(bug_value);
  PF_DYNAMIC_SHARED_SM90(smem);
  unsigned long long* full = reinterpret_cast<unsigned long long*>(smem);
  unsigned long long* empty = full + kStages;
  const unsigned rank = cluster_ctarank(), peer = rank ^ 1u;
  const bool remote_release = bug != ClusterBug::missing_remote_arrive;
  const int cluster = static_cast<int>(gridDim.y == 2 ? blockIdx.x : blockIdx.x / 2);  // 1 x 2 or 2 x 1 clusters
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(full + s, 1);                              // the own producer's arrive_expect_tx, then the bytes
      mbarrier_init(empty + s, remote_release ? 64u : 32u);  // the consumers of both blocks
    }
    fence_mbarrier_init();
  }
  if (bug == ClusterBug::missing_cluster_barrier_init) __syncthreads();  // planted: the peer's inits are not ordered
  else cluster_sync();
  if (threadIdx.x == 0) {
    const unsigned short mask = bug == ClusterBug::wrong_multicast_mask ? static_cast<unsigned short>(1u << rank) : 0x3;
    for (int it = 0; it < steps; ++it) {
      const int s = it % kStages;
      if (it >= kStages) mbarrier_wait(empty + s, static_cast<unsigned>(it / kStages - 1) & 1u);
      unsigned char* stage = smem + kRing + s * kStageBytes;
      mbarrier_arrive_expect_tx(full + s, kStageBytes);
      tma_load_2d_multicast(stage + rank * kBoxBytes, map, 0, cluster * steps * 32 + it * 32 + static_cast<int>(rank) * 16,
                            full + s, mask);
    }
  } else if (threadIdx.x >= 32) {
    const int block = 2 * cluster + static_cast<int>(rank);
    for (int it = 0; it < steps; ++it) {
      const int s = it % kStages;
      mbarrier_wait(full + s, static_cast<unsigned>(it / kStages) & 1u);
      const unsigned char* stage = smem + kRing + s * kStageBytes;
      unsigned char* o = out + (static_cast<long long>(block) * steps + it) * kStageBytes;
      for (int i = static_cast<int>(threadIdx.x) - 32; i < kStageBytes / 16; i += 32) pf::stg128(o + 16 * i, pf::lds128(stage + 16 * i));
      mbarrier_arrive(empty + s);
      if (remote_release) mbarrier_arrive_cluster(cluster_address(empty + s, peer));
    }
  }
  if (bug != ClusterBug::missing_cluster_barrier_exit) cluster_sync();  // no block exits while its peer may reach it
}

__global__ void cluster_ranks(int* out) {
  pf::stg(out + blockIdx.x, static_cast<int>(cluster_ctarank()));
}

// Misuses of a cluster (emu_cluster_bugs.h: ClusterMisuse), each a thread's error the emulator
// reports: an ordinary store past the block's own shared memory (where its peer's would be),
// mapa to a rank outside the cluster, barrier.cluster.wait without an arrive, and rank 1 leaving
// without the barrier.cluster its peer waits on.
__global__ void cluster_misuse(int misuse_value) {
  const ClusterMisuse misuse = static_cast<ClusterMisuse>(misuse_value);
  PF_DYNAMIC_SHARED_SM90(smem);
  if (misuse == ClusterMisuse::store_past_own_shared && threadIdx.x == 0) pf::sts(reinterpret_cast<int*>(smem + 1024), 1);
  if (misuse == ClusterMisuse::map_outside_cluster && threadIdx.x == 0) (void)cluster_address(smem, 2);
  if (misuse == ClusterMisuse::wait_without_arrive) cluster_wait();
  if (misuse == ClusterMisuse::peer_leaves_without_barrier && cluster_ctarank() == 1) return;
  cluster_sync();
}

}  // extern "C"

