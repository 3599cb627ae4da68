// Launchers of the cluster kernels of emu_cluster_kernels.cu on the emulator (issue 18, item 3).
#include "polyfuse_emu/cuda_emulation.h"
#include "emu_cluster_kernels.cu"

#include <cstring>

#include "emu_cluster_kernels.h"

namespace emu_cluster {

polyfuse::emu::Stats launch_cluster_ring(ClusterBug bug, const polyfuse::tma::TensorMapBytes& map, unsigned char* out,
                                         int steps, int clusters, bool vertical) {
  TensorMap m;
  std::memcpy(&m, map.bytes, sizeof m);
  const dim3 grid = vertical ? dim3(static_cast<unsigned>(clusters), 2) : dim3(2u * static_cast<unsigned>(clusters));
  const dim3 cluster = vertical ? dim3(1, 2) : dim3(2);
  const std::size_t smem = kRing + kStages * kStageBytes;
  return polyfuse::emu::launch_clusters(cluster_ring, grid, cluster, dim3(64), smem, m, out, steps, static_cast<int>(bug));
}

polyfuse::emu::Stats launch_cluster_misuse(ClusterMisuse misuse) {
  return polyfuse::emu::launch_clusters(cluster_misuse, dim3(2), dim3(2), dim3(32), 1024, static_cast<int>(misuse));
}

polyfuse::emu::Stats launch_cluster_grid(unsigned grid_x, int* out) {
  return polyfuse::emu::launch_clusters(cluster_ranks, dim3(grid_x), dim3(2), dim3(32), 0, out);
}

}  // namespace emu_cluster
