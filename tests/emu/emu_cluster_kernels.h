// Launchers of the cluster kernels of emu_cluster_kernels.cu: a 2-block cluster in which each
// block's producer loads half of every stage by TMA multicast into both blocks, and the
// consumers of both blocks release each stage in both (remote mbarrier arrives) — correct, or
// with one planted bug.
#pragma once

#include "emu_cluster_bugs.h"
#include "polyfuse_emu/emulator.h"
#include "runtime/tma/tensor_map_rules.h"

namespace emu_cluster {

// `clusters` clusters of two 64-thread blocks (cluster dims (2, 1, 1), or (1, 2, 1) with
// `vertical`) stream `steps` stages of the 64 x (32 steps) f16 tensor of `map` (swizzle none,
// box {64, 16}); block b writes stage k to out + (b * steps + k) * kStageBytes.
polyfuse::emu::Stats launch_cluster_ring(ClusterBug bug, const polyfuse::tma::TensorMapBytes& map, unsigned char* out,
                                         int steps, int clusters = 1, bool vertical = false);

// A kernel of 2-block clusters launched on a grid of `grid_x` blocks (odd: refused).
polyfuse::emu::Stats launch_cluster_grid(unsigned grid_x, int* out);

// cluster_misuse on one cluster of two 32-thread blocks with 1024 bytes of shared memory each.
polyfuse::emu::Stats launch_cluster_misuse(ClusterMisuse misuse);

}  // namespace emu_cluster
