// The tile geometry of the sm_90a GEMM kernel (codegen/hopper_gemm_kernel.h): which consumer
// schedule, the block tile and ring for an element width and matmul count, the register split
// between producer and consumers, the tile walk's block count, the TMA box rows, and the
// schedule's one-line description. The kernel's text is in hopper_gemm_kernel.cc.
#include "codegen/hopper_gemm_kernel.h"

#include <algorithm>
#include <fmt/format.h>

#include "frontend/diagnostics.h"

namespace polyfuse {

ConsumerSchedule hopper_default_consumers() { return ConsumerSchedule::cooperative; }

HopperGemmTiles hopper_gemm_tiles(std::int64_t m, ConsumerSchedule schedule, int element_bytes, int matmuls, int a_tiles,
                                  std::int64_t row_span) {
  PF_INTERNAL_CHECK(element_bytes == 1 || element_bytes == 2 || element_bytes == 4,
                    "Hopper tiles of FP8, 16-bit or f32 (TF32) elements");
  PF_INTERNAL_CHECK((matmuls == 1 || matmuls == 2) && a_tiles >= 1 && a_tiles <= matmuls, "one or two matmuls in a k-loop");
  HopperGemmTiles t;
  t.schedule = schedule;
  t.element_bytes = element_bytes;
  t.matmuls = matmuls;
  t.a_tiles = a_tiles;
  t.bn = 128 / matmuls;  // matmuls x bn / 2 = 64 accumulator registers per consumer thread
  if (row_span > 0) {      // the tile spans the row of a fused row chain
    PF_INTERNAL_CHECK(matmuls == 1 && row_span <= 256, "a row chain's row of at most 256 columns after one matmul");
    t.bn = 64;  // (an N-major B tile is whole 128-byte atoms of 64 16-bit columns)
    while (t.bn < row_span) t.bn *= 2;
  }
  t.bk = t.box_inner();
  t.bm = m > 64 && schedule == ConsumerSchedule::cooperative ? 128 : 64;
  constexpr int kSharedBudget = 227 * 1024, kMaxStages = 6;
  // (room for three mbarriers a stage: a prologue applied in place adds "loaded")
  t.stages = std::clamp((kSharedBudget - t.staging_bytes() - 24 * kMaxStages - 16 - 8 * t.consumers()) / t.stage_bytes(), 2,
                        kMaxStages);
  PF_INTERNAL_CHECK(t.shared_bytes() <= kSharedBudget, "the ring, the staging and the mbarriers fit 227 KB");
  return t;
}

int hopper_launch_registers(int warpgroups) {
  return std::min(255, 65536 / (128 * warpgroups)) / 8 * 8;
}

// setmaxnreg moves registers within the block's pool: what its threads entered with (PTX ISA
// 9.7.17.1), 168 per thread for 384 threads under __launch_bounds__(384, 1), not the SM's 64K.
// A producer that copies operands keeps what the consumers leave of the pool, at most 88: 88
// beside one consumer at 232, 88 beside two at 208 (504 = 3 x 168; 80 + 2 x 216 hung an H200's
// consumers in setmaxnreg.inc, and 72 + 2 x 216 spilled the 128-row gather of a convolution).
HopperRegisterSplit hopper_register_split(const HopperGemmTiles& tiles, bool producer_threads_work) {
  HopperRegisterSplit r;
  const int consumers = tiles.consumers(), pool = (consumers + 1) * hopper_launch_registers(consumers + 1);
  if (producer_threads_work) {
    r.consumer = consumers > 1 ? 208 : 232;
    r.producer = std::min(88, (pool - consumers * r.consumer) / 8 * 8);
  }
  PF_INTERNAL_CHECK(r.producer >= 24 && r.producer + consumers * r.consumer <= pool,
                    "the register split fits the registers the block's threads enter with");
  return r;
}

std::int64_t hopper_tile_count(const HopperGemmTiles& t, std::int64_t m, std::int64_t n) {
  return ((m + t.bm - 1) / t.bm) * ((n + t.bn - 1) / t.bn);
}

std::int64_t hopper_walk_blocks(const HopperGemmTiles& t, const HopperTileSchedule& schedule, std::int64_t m, std::int64_t n) {
  if (!schedule.clustered()) return hopper_tile_count(t, m, n);
  const std::int64_t cluster_rows = ((m + t.bm - 1) / t.bm + schedule.cluster_m - 1) / schedule.cluster_m,
                     cluster_cols = ((n + t.bn - 1) / t.bn + schedule.cluster_n - 1) / schedule.cluster_n;
  return cluster_rows * cluster_cols * schedule.cluster_blocks();
}

int hopper_box_rows(const HopperGemmTiles& t, const HopperTileSchedule& schedule, char operand, bool k_contiguous) {
  const int mn = operand == 'A' ? t.bm : t.bn;
  const int rows = k_contiguous ? mn : t.bk, atoms = k_contiguous ? t.bk / t.box_inner() : mn / t.box_inner();
  const bool shared = operand == 'A' ? schedule.cluster_n > 1 : schedule.cluster_m > 1;
  return shared && atoms == 1 ? rows / 2 : rows;
}

std::string hopper_schedule_text(const HopperGemmTiles& t, const HopperTileSchedule& schedule, const MainLoopChoice& choice,
                                 std::int64_t m, std::int64_t n, std::int64_t batches) {
  const HopperRegisterSplit r = hopper_register_split(t, choice.producer_threads_work());
  const char* producer = choice.any_thread_copy()         ? "TMA and thread copies"
                         : choice.any_prologue_in_place() ? "TMA, the prologue applied by its threads in shared memory"
                                                          : "TMA";
  const std::int64_t tiles = batches * hopper_tile_count(t, m, n);
  const std::string of_batches =
      batches > 1 ? fmt::format(" ({} batch elements of {})", batches, hopper_tile_count(t, m, n)) : "";
  const std::string walk =
      schedule.clustered()
          ? fmt::format("; clusters of {}x{} tiles sharing {} by TMA multicast: {} cluster tiles in groups of {} cluster-tile rows "
                        "over min(SMs, {}) blocks, a multiple of 2",
                        schedule.cluster_m, schedule.cluster_n, schedule.cluster_m > 1 ? "B" : "A",
                        hopper_walk_blocks(t, schedule, m, n) / 2, schedule.group, hopper_walk_blocks(t, schedule, m, n))
          : fmt::format(" in groups of {} tile rows over min(SMs, {}) blocks", schedule.group, tiles);
  return fmt::format("warp-specialised, {}: a producer warpgroup ({}, {} registers) and {} consumer warpgroup{} "
                     "({} registers) on {} {} x {} tile{}; persistent: {} tiles{}{}",
                     to_string(t.schedule), producer, r.producer,
                     t.consumers() == 1 ? "one" : "two", t.consumers() == 1 ? "" : "s", r.consumer,
                     t.pingpong() ? "alternate" : "each", t.bm, t.bn, t.pingpong() ? "s" : "", tiles, of_batches, walk);
}

}  // namespace polyfuse
