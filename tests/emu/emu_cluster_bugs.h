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

// A box of 64 x 16 f16 (2048 bytes); a stage is two boxes (the halves of the two blocks).
constexpr int kBoxBytes = 2048, kStageBytes = 2 * kBoxBytes;

}  // namespace emu_cluster
