// The sm_90a GEMM kernel's producer warpgroup (codegen/hopper_gemm_kernel.h) and the loops over
// a block's tiles that the producer and the consumers share (codegen/hopper_kernel_shape.h).
#include <algorithm>
#include <fmt/format.h>

#include "codegen/hopper_kernel_shape.h"
#include "codegen/mma_sync_loop.h"
#include "frontend/diagnostics.h"

namespace polyfuse::hopper_kernel {

namespace {

// The clustered tile loop: the cluster's cluster tiles (cluster_m x cluster_n output tiles)
// from cluster = blockIdx.x / 2 by clusters = gridDim.x / 2, in groups of `group` cluster-tile
// rows; the block's tile in it is the one of its rank.
std::string cluster_tile_loop(const KernelShape& k, const std::string& indent, bool alternate) {
  const HopperTileSchedule& c = k.schedule;
  const std::int64_t rows = (k.tiles_m + c.cluster_m - 1) / c.cluster_m, cols = (k.tiles_n + c.cluster_n - 1) / c.cluster_n;
  std::string text;
  if (alternate)
    text += fmt::format("{}for (int tile = cluster + wg * clusters; tile < {}; tile += 2 * clusters) {{\n", indent, rows * cols);
  else
    text += fmt::format("{}for (int tile = cluster; tile < {}; tile += clusters) {{\n", indent, rows * cols);
  text += fmt::format("{}  const pf::Tile c = pf::grouped_tile_at(tile, {}, {}, {});  // the cluster tile\n", indent, cols, rows,
                      c.group);
  text += fmt::format("{}  const int m0 = {} * {}, n0 = {} * {};  // the block's tile in it\n", indent,
                      c.cluster_m > 1 ? "(2 * c.row + rank)" : "c.row", k.t.bm, c.cluster_n > 1 ? "(2 * c.col + rank)" : "c.col",
                      k.t.bn);
  return text;
}

}  // namespace

// `for (tile ...)` over the block's tiles with m0 and n0 (and batch), at `indent`: every tile of
// the block's walk, or (`alternate`) the ping-pong consumer wg's half of them. Batched, tile
// numbers run over batch x tiles: batch tile / (tiles_m tiles_n), then the grouped (m, n) tile.
// `origin` ("m0" or "n0", not clustered): that origin alone, for a loop that reads no other.
std::string tile_loop(const KernelShape& k, const std::string& indent, bool alternate, const char* origin) {
  std::string text = "#pragma unroll 1\n";
  if (k.schedule.clustered()) return text + cluster_tile_loop(k, indent, alternate);
  const std::int64_t per_batch = k.tiles_m * k.tiles_n;
  if (alternate)
    text += fmt::format("{}for (int tile = blockIdx.x + wg * gridDim.x; tile < {}; tile += 2 * gridDim.x) {{\n", indent,
                        per_batch * k.batches);
  else
    text += fmt::format("{}for (int tile = blockIdx.x; tile < {}; tile += gridDim.x) {{\n", indent, per_batch * k.batches);
  if (origin) {  // the tile's origin alone: no batch (a loop that reads neither the batch nor the other origin)
    PF_INTERNAL_CHECK(!alternate, "every tile of the walk");
    if (per_batch == 1) return text + fmt::format("{}  const int {} = 0;\n", indent, origin);
    const std::string tile = k.batched ? fmt::format("tile % {}", per_batch) : "tile";
    text += fmt::format("{}  const pf::Tile c = pf::grouped_tile_at({}, {}, {}, {});\n", indent, tile, k.tiles_n, k.tiles_m,
                        k.schedule.group);
    return text + fmt::format("{}  const int {} = c.{} * {};\n", indent, origin, origin[0] == 'm' ? "row" : "col",
                              origin[0] == 'm' ? k.t.bm : k.t.bn);
  }
  if (k.batched && per_batch == 1) {  // one tile per batch element
    text += fmt::format("{}  const int batch = tile;  // the linearised batch element\n", indent);
    text += fmt::format("{}  const pf::Tile c = {{0, 0}};\n", indent);
  } else if (k.batched) {
    text += fmt::format("{}  const int batch = tile / {};  // the linearised batch element\n", indent, per_batch);
    text += fmt::format("{}  const pf::Tile c = pf::grouped_tile_at(tile % {}, {}, {}, {});\n", indent, per_batch, k.tiles_n,
                        k.tiles_m, k.schedule.group);
  } else
    text += fmt::format("{}  const pf::Tile c = pf::grouped_tile_at(tile, {}, {}, {});\n", indent, k.tiles_n, k.tiles_m,
                        k.schedule.group);
  text += fmt::format("{}  const int m0 = c.row * {}, n0 = c.col * {};\n", indent, k.t.bm, k.t.bn);
  return text;
}

// Clustered: the barrier.cluster every thread passes before it exits, so that no block exits
// while its peer's multicasts or remote arrives may still reach its shared memory.
std::string cluster_exit(const KernelShape& k, const std::string& indent) {
  if (!k.schedule.clustered()) return "";
  return indent + "cluster_sync();  // the peer's last multicast and remote arrives reached this block before it exits\n";
}

namespace {

// The producer's loops over the block's tiles and their k-blocks, at `indent`, down to the
// stage of k-block `it` once the consumers released its previous fill.
std::string producer_loops(const KernelShape& k, const std::string& indent) {
  const int s = k.t.stages;
  std::string text = fmt::format("{}int it = 0;  // k-blocks loaded so far, over the tiles\n", indent);
  text += tile_loop(k, indent);
  if (k.gather)
    text += fmt::format("{0}  const auto {1}_rows = pf::gather_rows<{2}, 64, 128>({1}_row, m0, threadIdx.x);  // this thread's "
                        "A rows of the tile, decomposed once\n",
                        indent, k.gather->input, k.t.bm);
  text += "#pragma unroll 1\n";
  text += fmt::format("{}  for (int kb = 0; kb < {}; ++kb, ++it) {{\n", indent, k.k_blocks);
  text += fmt::format("{}    const int s = it % {};\n", indent, s);
  text += fmt::format("{}    if (it >= {}) mbarrier_wait(empty + s, static_cast<unsigned>(it / {} - 1) & 1u);\n", indent, s, s);
  text += fmt::format("{}    unsigned char* stage = smem + s * {};\n", indent, k.t.stage_bytes());
  return text;
}

// The producer when an operand's prologue applies where TMA loaded it (OperandCopy::
// tma_prologue): thread 0 runs ahead loading the stages by TMA onto "loaded", warps 1 .. 3 follow,
// transforming each stage's tile once its bytes landed, then arrive on "full". The ring's depth
// is how far the loads run ahead of the transforms.
std::string producer_in_place_branch(const KernelShape& k, const std::string& type) {
  const int s = k.t.stages;
  const StageOperand& transformed = k.a.copy == OperandCopy::tma_prologue ? k.a : k.b;
  std::string text = "  if (warpgroup_index() == 0) {\n";
  text += fmt::format(
      "    // the producer warpgroup: its registers to the consumers; thread 0 loads every k-block of the\n"
      "    // block's tiles by TMA (PTX ISA 9.7.9.27) into the ring, stage it % {}, completing on loaded[it % {}],\n"
      "    // once the consumers released the stage's previous fill on empty[it % {}]; warps 1 .. 3 wait for\n"
      "    // each stage's bytes, apply the prologue to {}'s tile where it landed, make it visible to wgmma\n"
      "    // (PTX ISA 9.7.13.4 fence.proxy.async) and arrive on full[it % {}]\n",
      s, s, s, transformed.name, s);
  text += fmt::format("    setmaxnreg_dec<{}>();\n", k.registers.producer);
  text += "    if (threadIdx.x == 0) {\n";
  text += producer_loops(k, "      ");
  text += fmt::format("          mbarrier_arrive_expect_tx(loaded + s, {});\n", k.t.stage_bytes());
  for (const StageOperand& o : k.operands) text += "          " + stage_tma_load(o, "stage", "loaded + s");
  text += "        }\n      }\n";
  text += "    } else if (threadIdx.x >= 32) {\n";
  // before the loops, whose names would shadow the tensors it reads
  std::string prologue = transformed.prologue;  // written for the copying producer's indentation: two more
  for (std::size_t at = prologue.find('\n'); at != std::string::npos; at = prologue.find('\n', at + 1)) prologue.insert(at + 1, "  ");
  text += fmt::format("      const auto prologue = {};\n", prologue);
  text += "      int it = 0;  // k-blocks transformed so far, over the tiles\n";
  text += tile_loop(k, "      ", false, &transformed == &k.a ? "m0" : "n0");
  text += "#pragma unroll 1\n";
  text += fmt::format("        for (int kb = 0; kb < {}; ++kb, ++it) {{\n", k.k_blocks);
  text += fmt::format("          const int s = it % {};\n", s);
  text += fmt::format("          mbarrier_wait(loaded + s, static_cast<unsigned>(it / {}) & 1u);\n", s);
  text += fmt::format("          unsigned char* stage = smem + s * {};\n", k.t.stage_bytes());
  text += "          " + stage_transform(transformed, "stage", type, "threadIdx.x - 32", 96);
  text += "          fence_proxy_async();\n";
  text += "          mbarrier_arrive(full + s);\n";
  text += "        }\n      }\n    }\n    return;\n  }\n";
  return text;
}

}  // namespace

std::string producer_branch(const KernelShape& k, const std::string& type) {
  const int s = k.t.stages;
  if (k.t.prologue_in_place) return producer_in_place_branch(k, type);
  std::string text = "  if (warpgroup_index() == 0) {\n";
  if (!k.by_threads) {
    text += fmt::format("    // the producer warpgroup: its registers to the consumers, then one thread loads every k-block\n"
                        "    // of the block's tiles by TMA (PTX ISA 9.7.9.27) into the ring, stage it % {}, completing on\n"
                        "    // full[it % {}], once the consumers released the stage's previous fill on empty[it % {}]\n", s, s, s);
    text += fmt::format("    setmaxnreg_dec<{}>();\n", k.registers.producer);
    text += "    if (threadIdx.x == 0) {\n";
    text += producer_loops(k, "      ");
    text += fmt::format("          mbarrier_arrive_expect_tx(full + s, {});\n", k.t.stage_bytes());
    if (k.chain_k_blocks > 0) {  // the first matmul's k-blocks, then the second's, into the same slots
      text += fmt::format("          if (kb < {}) {{  // {}'s k-blocks\n", k.chain_k_blocks, k.operands[0].name);
      text += "            " + stage_tma_load(k.operands[static_cast<std::size_t>(k.a_of[0])], "stage");
      text += "            " + stage_tma_load(k.operands[static_cast<std::size_t>(k.b_of[0])], "stage");
      text += fmt::format("          }} else {{  // then {}'s, continuing the same sum\n",
                          k.operands[static_cast<std::size_t>(k.a_of[1])].name);
      text += "            " + stage_tma_load(k.operands[static_cast<std::size_t>(k.a_of[1])], "stage");
      text += "            " + stage_tma_load(k.operands[static_cast<std::size_t>(k.b_of[1])], "stage");
      text += "          }\n";
    } else {
      for (const StageOperand& o : k.operands) text += "          " + stage_tma_load(o, "stage");
    }
    text += "        }\n      }\n    }\n" + cluster_exit(k, "    ") + "    return;\n  }\n";
    return text;
  }
  const StageOperand& copied = *k.by_threads;
  text += fmt::format("    // the producer warpgroup: its registers to the consumers, then for every k-block of the block's\n"
                      "    // tiles, once the consumers released the stage's previous fill on empty[it % {}]: thread 0\n"
                      "    // loads {} by TMA (PTX ISA 9.7.9.27) completing on full[it % {}], and all 128 threads copy\n",
                      s, k.by_tma.name, s);
  if (!copied.gather.empty())
    text += fmt::format("    // A, gathered from {} (the im2col matrix is never in memory) in the layout TMA would write, by\n"
                        "    // cp.async (PTX ISA 9.7.9.8), {} k-blocks' copies in flight behind the newest; once a k-block's\n"
                        "    // copies landed (cp.async.wait_group), make them visible to wgmma (PTX ISA 9.7.13.4\n"
                        "    // fence.proxy.async) and arrive on its full mbarrier\n",
                        copied.gather, std::max(1, s - 2));
  else if (copied.prologue.empty())
    text += fmt::format("    // {} in the layout TMA would write (TMA cannot load {}: its rows are {} bytes apart), make it\n"
                        "    // visible to wgmma (PTX ISA 9.7.13.4 fence.proxy.async) and arrive on full[it % {}]\n",
                        copied.name, copied.name, copied.extent_inner * 2, s);
  else
    text += fmt::format("    // {} through the prologue in the layout TMA would write, make it visible to wgmma (PTX ISA\n"
                        "    // 9.7.13.4 fence.proxy.async) and arrive on full[it % {}]\n", copied.name, s);
  text += fmt::format("    setmaxnreg_dec<{}>();\n", k.registers.producer);
  if (!copied.prologue.empty())  // before the loops, whose names would shadow the tensors it reads
    text += fmt::format("    const auto prologue = {};\n", copied.prologue);
  if (k.gather) text += indented(k.gather->functions, 4);
  text += producer_loops(k, "    ");
  text += "        if (threadIdx.x == 0) {\n";
  text += fmt::format("          mbarrier_arrive_expect_tx(full + s, {});\n", k.by_tma.bytes());
  text += "          " + stage_tma_load(k.by_tma, "stage");
  text += "        }\n";
  if (copied.gather.empty()) {
    text += "        " + stage_thread_load(copied, "stage");
    text += "        fence_proxy_async();\n";
    text += "        mbarrier_arrive(full + s);\n";
    text += "      }\n    }\n" + cluster_exit(k, "    ") + "    return;\n  }\n";
    return text;
  }
  // The gather by cp.async: each thread keeps `lag` k-blocks' copies in flight behind the newest
  // and arrives on a stage once its copies there landed (fewer than the ring's stages, so the
  // stage a thread refills was released by the consumers after its own arrive there).
  const int lag = std::max(1, s - 2);
  text += "        " + stage_gather_async(copied, "stage");
  text += "        pf::cp_async_commit();\n";
  text += fmt::format("        if (it >= {0}) {{  // k-block it - {0}'s copies landed: visible to wgmma, then its arrive\n", lag);
  text += fmt::format("          pf::cp_async_wait<{}>();\n", lag);
  text += "          fence_proxy_async();\n";
  text += fmt::format("          mbarrier_arrive(full + (it - {}) % {});\n", lag, s);
  text += "        }\n      }\n    }\n";
  text += fmt::format("    // the last {} k-blocks' copies\n", lag);
  text += "    pf::cp_async_wait_all();\n    fence_proxy_async();\n";
  text += fmt::format("    for (int j = it > {0} ? it - {0} : 0; j < it; ++j) mbarrier_arrive(full + j % {1});\n", lag, s);
  text += cluster_exit(k, "    ") + "    return;\n  }\n";
  return text;
}

}  // namespace polyfuse::hopper_kernel
