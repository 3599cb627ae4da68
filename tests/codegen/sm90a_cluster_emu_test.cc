// Thread-block clusters on the sm_90a warp-specialised kernel (issue 18, items 3 and 6): with
// --cluster 2x1 two blocks on vertically adjacent tiles share each B tile, with 1x2 horizontally
// adjacent ones share each A tile; each block loads half of the shared tile by TMA multicast into
// both. On the emulator (through run_program, as `polyfuse run --backend=emu`): gemm and
// gemm_bias_relu at aligned and odd shapes (edge tiles past M or N, cluster tiles past the edge,
// blocks walking several cluster tiles), every box counted once however many blocks it lands in;
// the golden kernel; the options refused where a cluster cannot be honoured; planted errors
// (a wrong multicast mask, a missing remote arrive, a missing barrier.cluster before the exit or
// after the inits) reported.
#include <gtest/gtest.h>

#include <string>

#include "codegen/cuda_emitter.h"
#include "codegen/launch_metadata.h"
#include "emu_harness.h"
#include "frontend/diagnostics.h"
#include "gemm_programs.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

GpuOptions clustered(ClusterShape cluster, std::optional<ConsumerSchedule> consumers = std::nullopt) {
  GpuOptions options = default_gpu_options(Arch::sm_90a);
  options.cluster = cluster;
  options.consumer_schedule = consumers;
  return options;
}

// The TMA bytes of a cooperative 128 x 128 x 64 f16 GEMM of `cluster_tiles` cluster tiles of
// `k_blocks` k-blocks: per cluster tile and k-block, each block's own tile of the operand it does
// not share, and the shared tile once (its two halves, each multicast into both blocks).
std::uint64_t clustered_tma_bytes(std::uint64_t cluster_tiles, std::uint64_t k_blocks) {
  return cluster_tiles * k_blocks * (2 * 128 * 64 + 64 * 128) * 2;
}

TEST(Sm90aClusterEmu, GemmSharesTheOperandTileAndCountsEachBoxOnce) {
  struct Case {
    ClusterShape cluster;
    int m, n, k;
    std::uint64_t cluster_tiles, k_blocks;
  };
  for (const Case& c : {Case{{2, 1}, 256, 256, 128, 2, 2},    // 2 x 2 tiles: 1 x 2 cluster tiles
                        Case{{1, 2}, 256, 256, 128, 2, 2},    // 2 x 1 cluster tiles
                        Case{{2, 1}, 300, 296, 72, 6, 2},     // 3 x 3 tiles (edges, a K tail): the last cluster row half past M
                        Case{{1, 2}, 300, 296, 72, 6, 2}}) {  // the last cluster column half past N
    Program program = compile_program(gemm_source("f16", true, true), {{"M", c.m}, {"N", c.n}, {"K", c.k}});
    const EmuRun run = run_on_emulator(program, clustered(c.cluster));
    const std::string what = to_string(c.cluster) + " " + std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k);
    EXPECT_TRUE(run.check.ok) << what << ": " << run.check.to_string();
    EXPECT_EQ(run.stats.counter("tma_bytes"), clustered_tma_bytes(c.cluster_tiles, c.k_blocks)) << what;
    EXPECT_EQ(run.stats.counter("blocks"), 2 * c.cluster_tiles) << what;
  }
}

// The fused epilogue (ping-pong by default: two consumers on alternate 64-row tiles; and
// cooperative), 3 x 3 edge tiles (a cluster tile half past M or N), few SMs so that each cluster
// walks several cluster tiles, under a random schedule.
TEST(Sm90aClusterEmu, GemmBiasReluWalksSeveralClusterTiles) {
  struct Case {
    ClusterShape cluster;
    std::optional<ConsumerSchedule> consumers;
    int m;
  };
  const EmulatedSms sms(4);
  for (const Case& c : {Case{{2, 1}, std::nullopt, 136}, Case{{1, 2}, std::nullopt, 136},
                        Case{{1, 2}, ConsumerSchedule::cooperative, 300}}) {
    Program program = compile_program(example_source("gemm_bias_relu"), {{"M", c.m}, {"N", 264}, {"K", 72}});
    EmuRunOptions how;
    how.schedule = emu::Schedule{emu::ScheduleKind::random, 7};
    const EmuRun run = run_on_emulator(program, clustered(c.cluster, c.consumers), how);
    EXPECT_TRUE(run.check.ok) << to_string(c.cluster) << ": " << run.check.to_string();
    EXPECT_EQ(run.stats.counter("blocks"), 4u);
  }
}

TEST(Sm90aClusterEmu, Golden) {
  Program program = compile_program(gemm_source("f16", true, true), {{"M", 300}, {"N", 296}, {"K", 72}});
  CudaEmitRequest request;
  request.options = clustered({2, 1});
  request.helpers = CudaEmitRequest::Helpers::omit;
  const EmittedKernel kernel = emit_cuda(program, request);
  EXPECT_EQ(kernel.metadata.cluster_x, 2);
  EXPECT_EQ(kernel.metadata.grid[0].value, 12);  // 2 x 3 cluster tiles of 2 blocks
  EXPECT_EQ(kernel.metadata.parameters[1].tma_box, (std::vector<int>{64, 64}));  // B(k, n): 2 boxes, one per block
  EXPECT_EQ(persistent_grid(kernel.metadata, 12, 7), 6u);  // a multiple of the cluster
  EXPECT_EQ(launch_metadata_from_json(to_json(kernel.metadata)).cluster_x, 2);  // kept by the JSON sidecar
  EXPECT_TRUE(matches_golden("// The sm_90a kernel of def gemm (M = 300, N = 296, K = 72), --cluster 2x1\n"
                             "#include \"polyfuse_cuda.cuh\"\n\n" + kernel.source,
                             "codegen/gemm_sm90a_cluster_2x1.cu"));
  // 1x2 with A(m, k) one box wide: each block loads half of its 128 rows
  request.options = clustered({1, 2});
  EXPECT_EQ(emit_cuda(program, request).metadata.parameters[0].tma_box, (std::vector<int>{64, 64}));
}

std::string refusal(const std::string& source, const SizeBindings& sizes, GpuOptions options) {
  try {
    CudaEmitRequest request;
    request.options = options;
    emit_cuda(compile_program(source, sizes), request);
  } catch (const UserError& e) {
    return e.what();
  }
  return "(not refused)";
}

TEST(Sm90aClusterEmu, RefusedWhereItCannotBeHonoured) {
  const std::string gemm = gemm_source("f16", true, true);
  const SizeBindings aligned = {{"M", 256}, {"N", 256}, {"K", 128}};
  GpuOptions sm90 = clustered({2, 1});
  sm90.arch = Arch::sm_90;
  EXPECT_NE(refusal(gemm, aligned, sm90).find("cluster 2x1: def 'gemm' on sm_90 runs the mma.sync main loop"), std::string::npos)
      << refusal(gemm, aligned, sm90);
  const std::string copied = refusal(gemm, {{"M", 256}, {"N", 257}, {"K", 128}}, clustered({1, 2}));
  EXPECT_NE(copied.find("copied by the producer's threads, not loaded by TMA"), std::string::npos) << copied;
  const std::string batched = refusal(example_source("batched_gemm"), {{"B", 2}, {"M", 128}, {"N", 128}, {"K", 64}}, clustered({2, 1}));
  EXPECT_NE(batched.find("not yet for a batched matmul"), std::string::npos) << batched;
  GpuOptions wide = clustered({2, 2});
  EXPECT_NE(refusal(gemm, aligned, wide).find("cluster 2x2: the sm_90a kernel's clusters are 1x1, 2x1 or 1x2"), std::string::npos);
  EXPECT_THROW(parse_cluster_shape("4x1"), UserError);
}

// A planted error in the clustered kernel's source (each `from` replaced by its `to`): the
// emulator's message contains one of the '|'-separated `reported`.
struct Plant {
  const char* what;
  std::vector<std::pair<std::string, std::string>> edits;
  std::string reported;
};

std::string planted(std::string text, const Plant& p) {
  for (const auto& [from, to] : p.edits) {
    std::size_t at = text.find(from);
    if (at == std::string::npos) throw std::logic_error(std::string(p.what) + ": no '" + from + "' in the kernel");
    for (; at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  }
  return text;
}

bool reports(const std::string& message, const std::string& alternatives) {
  for (std::size_t begin = 0;;) {
    const std::size_t end = alternatives.find('|', begin);
    if (message.find(alternatives.substr(begin, end - begin)) != std::string::npos) return true;
    if (end == std::string::npos) return false;
    begin = end + 1;
  }
}

TEST(Sm90aClusterEmu, PlantedErrorsAreReported) {
  const std::vector<Plant> plants = {
      {"a wrong multicast mask (every half to rank 0 only)", {{"full + s, 0x3);", "full + s, 0x1);"}},
       "deadlock on an mbarrier"},
      {"no remote arrive (each block's consumers release only their own stage)",
       {{"mbarrier_init(empty + s, 264)", "mbarrier_init(empty + s, 256)"},
        {"if (pf::lane_id() == 0) mbarrier_arrive_cluster(cluster_address(empty + (it - 1) % 5, peer));", ""}},
       "a multicast into a block whose stage is not free|shared-memory race"},
      {"no barrier.cluster before the exit",
       {{"cluster_sync();  // the peer's last multicast and remote arrives reached this block before it exits", ""}},
       "missing barrier.cluster before the exit|which has exited"},
      {"__syncthreads instead of barrier.cluster after the inits",
       {{"  cluster_sync();  // both blocks' mbarriers", "  __syncthreads();  // both blocks' mbarriers"}},
       "a peer's mbarrier is used only once its init is ordered before the use"},
  };
  Program program = compile_program(gemm_source("f16", true, true), {{"M", 256}, {"N", 512}, {"K", 384}});
  const EmulatedSms sms(2);  // one cluster walks 2 x 2 cluster tiles of 6 k-blocks in 5 stages
  for (const Plant& p : plants) {
    EmuRunOptions how;
    how.edit = [&p](const std::string& source) { return planted(source, p); };
    how.schedule = emu::Schedule{emu::ScheduleKind::random, 3};
    try {
      const EmuRun run = run_on_emulator(program, clustered({2, 1}), how);
      ADD_FAILURE() << p.what << ": not reported (" << run.check.to_string() << ")";
    } catch (const std::exception& e) {
      EXPECT_TRUE(reports(e.what(), p.reported)) << p.what << ": " << e.what();
    }
  }
}

}  // namespace
}  // namespace polyfuse
