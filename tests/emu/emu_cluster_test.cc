// The emulator's thread-block clusters (issue 18, items 3 and 6): a two-block cluster whose
// producers multicast halves of each stage into both blocks and whose consumers release each
// stage in both blocks runs, lands every box in both blocks and counts each box once; the
// planted bugs are reported, naming the rule:
//   * a wrong multicast mask (the peer never receives its half: a deadlock on its "full");
//   * a missing remote arrive (a producer refills a stage its peer's consumers still read);
//   * a missing barrier.cluster before the exit (a peer reaches a block that exited);
//   * a missing barrier.cluster after mbarrier.init (a peer uses an mbarrier before its init).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "emu_cluster_kernels.h"
#include "error_of.h"
#include "polyfuse_emu/emulator.h"
#include "runtime/tma/tensor_map.h"

namespace {
using emu_cluster::ClusterBug;
using polyfuse::emu::ScopedBuffer;
using polyfuse::emu::testing::error_of;
using polyfuse::emu::testing::mentions;
namespace tma = polyfuse::tma;

// A 64 x (32 steps clusters) f16 tensor of distinct values; out: every block's copy of every stage.
struct RingSetup {
  int steps, clusters;
  std::vector<unsigned short> tensor;
  std::vector<unsigned char> out;
  RingSetup(int s, int c) : steps(s), clusters(c), tensor(64u * 32u * static_cast<unsigned>(s * c)),
                            out(static_cast<std::size_t>(2 * c * s) * emu_cluster::kStageBytes, 0) {
    for (std::size_t i = 0; i < tensor.size(); ++i) tensor[i] = static_cast<unsigned short>(i * 7 + 1);
  }
  polyfuse::emu::Stats run(ClusterBug bug, bool vertical = false) {
    ScopedBuffer bt(tensor.data(), tensor.size() * 2, "tensor"), bo(out.data(), out.size(), "out");
    const tma::TensorMapBytes map =
        tma::encode_tiled(tma::tiled_2d(tma::DataType::float16, tensor.data(), 64, 32u * static_cast<unsigned>(steps * clusters),
                                        128, 64, 16, tma::Swizzle::none),
                          tma::Target::emulator);
    return emu_cluster::launch_cluster_ring(bug, map, out.data(), steps, clusters, vertical);
  }
  std::string error(ClusterBug bug) {
    return error_of([&] { run(bug); });
  }
  // Block b of cluster c holds stage k of its cluster: rows 32 (c steps + k) .. + 31.
  void expect_every_block_got_every_stage() const {
    const std::size_t stage = emu_cluster::kStageBytes;
    for (int c = 0; c < clusters; ++c)
      for (int b = 0; b < 2; ++b)
        for (int k = 0; k < steps; ++k) {
          const unsigned char* got = out.data() + (static_cast<std::size_t>(2 * c + b) * steps + k) * stage;
          const auto* want = reinterpret_cast<const unsigned char*>(tensor.data()) + static_cast<std::size_t>(c * steps + k) * stage;
          EXPECT_EQ(std::memcmp(got, want, stage), 0) << "cluster " << c << ", block rank " << b << ", stage " << k;
        }
  }
};

TEST(EmuCluster, MulticastLandsEveryBoxInBothBlocksAndCountsItOnce) {
  RingSetup ring(5, 2);
  const polyfuse::emu::Stats stats = ring.run(ClusterBug::none);
  ring.expect_every_block_got_every_stage();
  const std::uint64_t tensor_bytes = ring.tensor.size() * 2;
  EXPECT_EQ(stats.tma_loads, 2u * 5u * 2u);  // one box per block and stage, each issued once
  EXPECT_EQ(stats.tma_bytes, tensor_bytes);  // ... though it lands in both blocks
  EXPECT_EQ(stats.global_bytes_loaded, tensor_bytes);
  EXPECT_EQ(stats.global_bytes_stored, 2 * tensor_bytes);
  EXPECT_EQ(stats.blocks, 4u);
}

TEST(EmuCluster, VerticalClustersAndRandomSchedules) {
  RingSetup ring(3, 1);
  ring.run(ClusterBug::none, /*vertical=*/true);
  ring.expect_every_block_got_every_stage();
  for (std::uint64_t seed : {3u, 11u}) {
    const polyfuse::emu::ScopedSchedule schedule({polyfuse::emu::ScheduleKind::random, seed});
    RingSetup again(3, 1);
    again.run(ClusterBug::none);
    again.expect_every_block_got_every_stage();
  }
}

TEST(EmuCluster, RanksAndAGridThatIsNotAMultipleOfTheCluster) {
  std::vector<int> ranks(4, -1);
  ScopedBuffer b(ranks.data(), ranks.size() * 4, "ranks");
  emu_cluster::launch_cluster_grid(4, ranks.data());
  EXPECT_EQ(ranks, (std::vector<int>{0, 1, 0, 1}));
  EXPECT_TRUE(mentions(error_of([&] { emu_cluster::launch_cluster_grid(3, ranks.data()); }),
                       {"kernel 'cluster_ranks': cluster (2,1,1) of grid (3,1,1)",
                        "the grid must be a multiple of the cluster in every dimension"}));
}

// Misuses of the cluster operations themselves, each reported naming the rule.
TEST(EmuCluster, MisusesOfTheClusterAreReported) {
  using emu_cluster::ClusterMisuse;
  emu_cluster::launch_cluster_misuse(ClusterMisuse::none);
  EXPECT_TRUE(mentions(error_of([] { emu_cluster::launch_cluster_misuse(ClusterMisuse::store_past_own_shared); }),
                       {"out-of-bounds shared store", "(rank 0 of its cluster)", "the launch declared 1024 bytes of dynamic "
                        "shared memory per block (a peer block's shared memory is reached through mapa addresses"}));
  EXPECT_TRUE(mentions(error_of([] { emu_cluster::launch_cluster_misuse(ClusterMisuse::map_outside_cluster); }),
                       {"mapa.shared::cluster to rank 2", "outside the cluster of 2 blocks"}));
  EXPECT_TRUE(mentions(error_of([] { emu_cluster::launch_cluster_misuse(ClusterMisuse::wait_without_arrive); }),
                       {"barrier.cluster.wait", "by a thread that has not arrived (barrier.cluster.arrive first)"}));
  EXPECT_TRUE(mentions(error_of([] { emu_cluster::launch_cluster_misuse(ClusterMisuse::peer_leaves_without_barrier); }),
                       {"barrier divergence (deadlock) in kernel 'cluster_misuse', the cluster of 2 blocks from block (0,0,0)",
                        "32 thread(s) wait at barrier.cluster.wait", "32 thread(s) have exited"}));
}

TEST(EmuCluster, WrongMulticastMaskLeavesThePeersStageIncomplete) {
  const std::string msg = RingSetup(3, 1).error(ClusterBug::wrong_multicast_mask);
  EXPECT_TRUE(mentions(msg, {"deadlock on an mbarrier", "kernel 'cluster_ring'",
                             "its transaction count waits for 2048 bytes that no TMA load in flight will deliver"}));
}

TEST(EmuCluster, MissingRemoteArriveLetsAProducerMulticastIntoAStageItsPeerStillReads) {
  const std::string msg = RingSetup(3, 1).error(ClusterBug::missing_remote_arrive);
  EXPECT_TRUE(mentions(msg, {"TMA multicast load", "kernel 'cluster_ring'", "writes shared offset 3072 (block rank 0)",
                             "a multicast into a block whose stage is not free",
                             "released by the consumers of every block of the multicast"}));
}

TEST(EmuCluster, MissingClusterBarrierBeforeTheExit) {
  const std::string msg = RingSetup(3, 1).error(ClusterBug::missing_cluster_barrier_exit);
  EXPECT_TRUE(mentions(msg, {"missing barrier.cluster before the exit of block (0,0,0) (rank 0 of its cluster) of kernel "
                             "'cluster_ring'", "thread (0,0,0) of block (1,0,0) reached its shared memory (TMA multicast load",
                             "every thread of the cluster arrives on a barrier.cluster after its last remote operation"}));
}

TEST(EmuCluster, MissingClusterBarrierAfterTheMbarrierInits) {
  const std::string msg = RingSetup(3, 1).error(ClusterBug::missing_cluster_barrier_init);
  EXPECT_TRUE(mentions(msg, {"TMA multicast load", "kernel 'cluster_ring'",
                             "a peer's mbarrier is used only once its init is ordered before the use",
                             "barrier.cluster arrive/wait in both blocks"}));
}

}  // namespace
