// The planted bugs of the cluster test kernel (emu_cluster_kernels.cu) and its stage layout;
// plain C++ for nvcc and the emulator build alike.
#pragma once

namespace emu_cluster {

enum class ClusterBug {
  none,
  wrong_multicast_mask,           // each producer multicasts its half to its own block only
  missing_remote_arrive,          // consumers release a stage in their own block only
  missing_cluster_barrier_exit,   // no barrier.cluster before the blocks exit
  missing_cluster_barrier_init,   // __syncthreads instead of barrier.cluster after mbarrier.init
};

// The misuses of cluster_misuse (32-thread blocks of 1024 bytes of shared memory, clusters of 2).
enum class ClusterMisuse {
  none,
  store_past_own_shared,        // a plain store at smem + 1024: the peer's memory is not the block's
  map_outside_cluster,          // mapa to rank 2
  wait_without_arrive,          // barrier.cluster.wait first
  peer_leaves_without_barrier,  // rank 1 exits; rank 0 waits at barrier.cluster forever
};

// A box of 64 x 16 f16 (2048 bytes); a stage is two boxes (the halves of the two blocks).
constexpr int kBoxBytes = 2048, kStageBytes = 2 * kBoxBytes;

}  // namespace emu_cluster
