#include "codegen/hopper_gemm_kernel.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "codegen/cuda_expressions.h"
#include "codegen/cuda_kernel_layout.h"
#include "codegen/hopper_epilogue.h"
#include "codegen/hopper_row_chain.h"
#include "codegen/row_chain_kernel.h"
#include "codegen/hopper_kernel_shape.h"
#include "codegen/hopper_stage_operand.h"
#include "codegen/main_loop_choice.h"
#include "codegen/mma_sync_loop.h"
#include "frontend/diagnostics.h"
#include "frontend/element_type.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {

using hopper_kernel::cluster_exit;
using hopper_kernel::KernelShape;
using hopper_kernel::producer_branch;
using hopper_kernel::tile_loop;

namespace {

// The operand `operand` ('A' or 'B') of `mm` as its tiles are read: from the prologue's
// source, transformed by the prologue's expression. A prologue that reads other tensors gets the
// element's coordinates in the source as stored (pf_outer: its row, pf_inner: its column) and
// loads their elements there (prologue_at, pf_thread_tile_sm90.cuh); those it reads by the
// column alone (f32, f16, bf16: a dequantisation's scale(k)) are loaded 8 columns at a time,
// once per chunk column a thread copies (prologue_columns), and reach the expression as
// pf_column[i].
std::string prologue_functor(const Program& program, const MatmulStage& mm, char operand) {
  const std::optional<OperandPrologue>& p = operand == 'A' ? mm.a_prologue : mm.b_prologue;
  if (!p) return "";
  const auto by_column = [&](const PrologueOperand& o) {
    const ElementType type = program.find_tensor(o.tensor)->type;
    return o.source_dims == std::vector<int>{1} &&
           (type == ElementType::f32 || type == ElementType::f16 || type == ElementType::bf16);
  };
  // The column operands in the order of the prologue's operands: pf_column[i] (not in the order
  // of c_expression's calls, the C++ compiler's order of evaluating function arguments).
  std::vector<std::string> columns;
  for (const PrologueOperand& o : p->operands)
    if (by_column(o) && std::find(columns.begin(), columns.end(), o.tensor) == columns.end()) columns.push_back(o.tensor);
  bool uses[2] = {false, false};  // pf_outer, pf_inner
  const std::string body = c_expression(p->expr, [&](int read) {
    if (read == 0) return std::string("x");
    const PrologueOperand& o = p->operands[static_cast<std::size_t>(read - 1)];
    if (by_column(o))
      return fmt::format("pf_column[{}]", std::find(columns.begin(), columns.end(), o.tensor) - columns.begin());
    const Tensor* tensor = program.find_tensor(o.tensor);
    std::string offset;
    for (std::size_t d = 0; d < o.indices.size(); ++d) {
      PF_INTERNAL_CHECK(o.source_dims[d] == 0 || o.source_dims[d] == 1, "a prologue operand of a 2-d source");
      std::int64_t stride = 1;
      for (std::size_t e = d + 1; e < tensor->dims.size(); ++e) stride *= bound_size(program, tensor->dims[e]).value;
      const std::string coordinate = o.source_dims[d] == 0 ? "pf_outer" : "pf_inner";
      uses[o.source_dims[d]] = true;
      offset += (offset.empty() ? "" : " + ") +
                (stride == 1 ? coordinate : fmt::format("static_cast<long long>({}) * {}", coordinate, stride));
    }
    return fmt::format("pf::to_float(pf::ldg({} + {}))", o.tensor, offset.empty() ? "0" : offset);
  });
  if (p->operands.empty()) return "[](float x) { return " + body + "; }";
  const std::string outer = uses[0] ? "pf_outer" : "/*pf_outer*/", inner = uses[1] ? "pf_inner" : "/*pf_inner*/";
  if (columns.empty())
    return fmt::format("pf::sm90::prologue_at([=](float x, int {}, int {}) {{ return {}; }})", outer, inner, body);
  std::string loads;
  for (std::size_t i = 0; i < columns.size(); ++i)
    loads += fmt::format(" pf::ldg_chunk({} + (count > 0 ? pf_inner : 0), pf_columns[{}], count);", columns[i], i);
  return fmt::format(
      "pf::sm90::prologue_columns<{}>(\n"
      "        [=](int pf_inner, int count, float (&pf_columns)[{}][8]) {{{} }},\n"
      "        [=](float x, int {}, int {}, const float (&pf_column)[{}]) {{ return {}; }})",
      columns.size(), columns.size(), loads, outer, inner, columns.size(), body);
}

// The kernel's parameters, in launch_metadata's order (the program's inputs and outputs; the
// sizes are bound): A and B as tensor maps where TMA loads them.
std::string parameters(const Program& program, const std::vector<StageOperand>& operands) {
  std::vector<std::string> list;
  for (const Tensor& tensor : program.tensors) {
    if (tensor.role == TensorRole::temporary) continue;
    const auto gathered = std::find_if(operands.begin(), operands.end(),
                                       [&](const StageOperand& o) { return o.name == tensor.name && !o.gather.empty(); });
    if (gathered != operands.end()) {  // the gather's input in its place (unless a parameter already)
      if (!program.find_tensor(gathered->gather))
        list.push_back(fmt::format("const {}* __restrict__ {}", cuda_type(tensor.type), gathered->gather));
      continue;
    }
    const bool map = std::any_of(operands.begin(), operands.end(), [&](const StageOperand& o) {
      return o.name == tensor.name && o.copy != OperandCopy::threads;
    });
    if (map) list.push_back(fmt::format("const __grid_constant__ pf::sm90::TensorMap {}_map", tensor.name));
    else list.push_back(fmt::format("{}{}* __restrict__ {}", tensor.role == TensorRole::input ? "const " : "",
                                    cuda_type(tensor.type), tensor.name));
  }
  return fmt::format("{}", fmt::join(list, ",\n    "));
}

// The consumer's release of stage `stage` (an expression) on "empty": its own block's, and
// clustered the peer's too (the peer's producer multicasts into this block's stage), by lane 0
// of each warp (its wgmma.wait_group retired the warp's share of the reads), as CUTLASS's
// consumers do: a remote arrive per warp, not per thread.
std::string release_stage(const KernelShape& k, const std::string& indent, const std::string& stage,
                          const std::string& condition, const std::string& comment) {
  const std::string guard = condition.empty() ? "" : "if (" + condition + ") ";
  if (!k.schedule.clustered()) return fmt::format("{}{}mbarrier_arrive(empty + {});{}\n", indent, guard, stage, comment);
  return fmt::format("{}{}{{{}\n{}  mbarrier_arrive(empty + {});\n"
                     "{}  if (pf::lane_id() == 0) mbarrier_arrive_cluster(cluster_address(empty + {}, peer));\n{}}}\n",
                     indent, guard, comment, indent, stage, indent, stage, indent);
}

// "A: 128 x 64 K-major at +0, B: 64 x 128 N-major at +16384": a stage's tiles (named by their
// tensors when the stage holds more than A and B).
std::string stage_text(const KernelShape& k, bool by_tensor) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < k.operands.size(); ++i) {
    const StageOperand& o = k.operands[i];
    const bool is_a = std::find(k.a_of.begin(), k.a_of.end(), static_cast<int>(i)) != k.a_of.end();
    const char* major = o.major == std::string("Major::k") ? "K" : is_a ? "M" : "N";
    parts.push_back(fmt::format("{}: {} x {} {}-major at +{}", by_tensor ? o.name : is_a ? "A" : "B", is_a ? k.t.bm : k.t.bk,
                                is_a ? k.t.bk : k.t.bn, major, o.offset));
  }
  if (!by_tensor) return fmt::format("{}", fmt::join(parts, ", "));
  std::string text;  // one tile a line
  for (const std::string& part : parts) text += "\n  //   " + part + ",";
  text.pop_back();
  return text;
}

// The accumulator of matmul i: `acc`, or `acc_<C>` when the k-loop feeds several.
std::string acc_name(const KernelShape& k, const KernelPlan& plan, std::size_t i) {
  return k.accumulators.size() == 1 ? "acc" : "acc_" + plan.matmuls[i].c;
}

// The consumers' epilogue of one tile, after the accumulators are final.
std::string consumer_epilogue(const Program& program, const KernelPlan& plan, const KernelShape& k) {
  const MatmulStage& mm = plan.matmuls[0];
  const HopperGemmTiles& t = k.t;
  const std::string row0 = t.tile_consumers() > 1 ? "m0 + 64 * wg" : "m0";
  if (const std::optional<FusedRowChain> fused = fused_row_chain(program)) {
    const std::variant<HopperRowChain, std::string> staged = hopper_row_chain(program, plan, *fused);
    PF_INTERNAL_CHECK(std::holds_alternative<HopperRowChain>(staged), "a row chain the wgmma epilogue takes");
    const HopperRowChain& chain = std::get<HopperRowChain>(staged);
    PF_INTERNAL_CHECK(t.bn >= chain.row_length && k.n <= t.bn, "one tile spans the row");
    std::string text = fmt::format("    // the accumulators staged in the warpgroup's shared memory{}, then the row chain on its 64 "
                                   "rows\n", mm.live_out ? fmt::format(" (and stored to {}: an output)", mm.c) : "");
    if (mm.live_out) {
      const int out_bytes = size_in_bytes(program.find_tensor(mm.c)->type);
      const std::string batch_offset = k.batched ? fmt::format("static_cast<long long>(batch) * {} + ", k.m * k.n) : "";
      text += fmt::format("    store_wg_acc_staged{}(acc, staging, {} + {}static_cast<long long>({}) * {} + n0, {}, {} - ({}),\n"
                          "                        {} - n0, epilogue_sync);\n",
                          k.n % (16 / out_bytes) == 0 ? "<true>" : "", mm.c, batch_offset, row0, k.n, k.n, k.m, row0, k.n);
    } else {
      text += "    stage_wg_acc(acc, staging, epilogue_sync);\n";
    }
    const std::string rows = staged_row_chain(program, chain.chain, chain.staged, t.bn, row0, k.batched ? "batch" : "0");
    if (k.schedule.cluster_n == 1) return text + rows;
    // clusters of 1 x 2 tiles: the second of a cluster tile row past the one tile that spans the row
    return text + "    if (n0 == 0) {  // the cluster's tile past the row (n0 > 0) holds none of it\n" + indented(rows, 2) +
           "    }\n";
  }
  if (!plan.epilogue.empty() || k.accumulators.size() > 1) {
    std::string text = fmt::format(
        "    // the accumulators staged in the warpgroup's shared memory, then the epilogue on its 64 x {} tile;\n"
        "    // rows and columns outside {} x {} are not read or written\n", t.bn, k.m, k.n);
    for (std::size_t i : k.accumulators)
      text += fmt::format("    stage_wg_acc({}, staging{}, epilogue_sync);\n", acc_name(k, plan, i),
                          i == 0 ? "" : fmt::format(" + {}", i * t.acc_staging_floats()));
    HopperEpilogueTile tile{row0, t.bn, k.m, k.n, {}};
    for (std::size_t i : k.accumulators) tile.staged.emplace_back(plan.matmuls[i].c, static_cast<int>(i) * t.acc_staging_floats());
    text += hopper_epilogue_tile(program, plan, tile);
    return text;
  }
  if (!mm.live_out)  // dead code: a result no statement reads and no output holds
    return fmt::format("    // {} is read by nothing after this kernel: not stored\n", mm.c);
  // 16-byte stores when every row of C starts 16-byte aligned (N a multiple of 16 / element size)
  const int out_bytes = size_in_bytes(program.find_tensor(mm.c)->type);
  const std::string store = k.n % (16 / out_bytes) == 0 ? "store_wg_acc_staged<true>" : "store_wg_acc_staged";
  std::string text = fmt::format("    // the accumulators to {} through the warpgroup's shared memory (rows and columns outside\n"
                                 "    // {} x {} not written)\n", mm.c, k.m, k.n);
  if (t.tile_consumers() > 1) text += fmt::format("    const int row0 = {};\n", row0);
  const std::string r0 = t.tile_consumers() > 1 ? "row0" : "m0";
  const std::string batch_offset = k.batched ? fmt::format("static_cast<long long>(batch) * {} + ", k.m * k.n) : "";
  text += fmt::format("    {}(acc, staging, {} + {}static_cast<long long>({}) * {} + n0, {}, {} - {}, {} - n0,\n"
                      "                        epilogue_sync);\n", store, mm.c, batch_offset, r0, k.n, k.n, k.m, r0, k.n);
  return text;
}

// "Fp8::e4m3" or "Fp8::e5m2": the wgmma operand type of FP8 tensor `name`.
std::string fp8_kind(const Program& program, const std::string& name) {
  return program.find_tensor(name)->type == ElementType::e4m3 ? "Fp8::e4m3" : "Fp8::e5m2";
}

std::string consumer_branch(const Program& program, const KernelPlan& plan, const KernelShape& k, const std::string& in) {
  const MatmulStage& mm = plan.matmuls[0];
  const HopperGemmTiles& t = k.t;
  const int s = t.stages;
  std::string text = fmt::format(
      "  // the consumer warpgroups: registers from the producer, then per tile: wait for each k-block's\n"
      "  // stage, wgmma (PTX ISA 9.7.15) from it, release the previous one; the epilogue\n");
  text += fmt::format("  setmaxnreg_inc<{}>();\n", k.registers.consumer);
  if (t.pingpong()) {
    text += "  const int wg = warpgroup_index() - 1;  // the block's tiles wg, wg + 2, ... (ping-pong)\n";
    text += fmt::format("  float* staging = reinterpret_cast<float*>(smem + {}) + wg * {};  // the warpgroup's epilogue staging\n",
                        t.ring_bytes(), t.wg_staging_floats());
    text += "  WarpgroupBarrier epilogue_sync{epilogue_bar + wg};\n";
  } else if (t.consumers() > 1) {
    text += fmt::format("  const int wg = warpgroup_index() - 1;  // rows 64 wg .. 64 wg + 63 of each {} x {} tile\n", t.bm, t.bn);
    text += fmt::format("  float* staging = reinterpret_cast<float*>(smem + {}) + wg * {};  // the warpgroup's epilogue staging\n",
                        t.ring_bytes(), t.wg_staging_floats());
    text += "  WarpgroupBarrier epilogue_sync{epilogue_bar + wg};\n";
  } else {
    text += fmt::format("  float* staging = reinterpret_cast<float*>(smem + {});  // the epilogue staging\n", t.ring_bytes());
    text += "  WarpgroupBarrier epilogue_sync{epilogue_bar};\n";
  }
  if (t.pingpong()) {
    text += fmt::format("  int it = wg * {};  // k-blocks of the block's walk so far: the other consumer's tiles count too\n",
                        k.k_blocks);
    text += "  int turn = 0;  // this consumer's tiles so far\n";
  } else
    text += "  int it = 0;  // k-blocks consumed so far, over the tiles\n";
  text += tile_loop(k, "  ", t.pingpong());
  for (std::size_t i : k.accumulators)
    text += fmt::format("    WgAcc<{}> {};  // f32 accumulators of {}: the warpgroup's 64 x {} tile\n", t.bn, acc_name(k, plan, i),
                        k.chain_k_blocks > 0 ? plan.matmuls[0].c + " + " + plan.matmuls[1].c : plan.matmuls[i].c, t.bn);
  if (t.pingpong())
    text += "    // its turn: the other consumer's main loop of the block's previous tile is done (its order phase\n"
            "    // turn - 1 + wg), so every earlier fill of the ring was observed and the parities below are this tile's\n"
            "    if (turn - 1 + wg >= 0) mbarrier_wait(order + wg, static_cast<unsigned>(turn - 1 + wg) & 1u);\n";
  text += "#pragma unroll 1\n";
  text += fmt::format("    for (int kb = 0; kb < {}; ++kb, ++it) {{\n", k.k_blocks);
  text += fmt::format("      const int s = it % {};\n", s);
  text += fmt::format("      mbarrier_wait(full + s, static_cast<unsigned>(it / {}) & 1u);\n", s);
  text += fmt::format("      const unsigned stage = shared_window_address(smem + s * {});\n", t.stage_bytes());
  const char* row0 = t.tile_consumers() > 1 ? "64 * wg" : "0";
  if (t.fp8()) {
    text += fmt::format("      // FP8 tiles of {} bytes a row, addressed in 16-bit units (a k32 step spans 32 bytes)\n", t.bk);
    text += fmt::format(
        "      wgmma_k_block_fp8<{}, {}, {}, Swizzle::b128, Swizzle::b128>(acc, OperandTile{{stage, {}, {}, {}}},\n"
        "          OperandTile{{stage + {}, {}, {}, 0}}, {}, kb > 0);\n",
        fp8_kind(program, mm.a), fp8_kind(program, mm.b), t.bn, t.bm, t.bk / 2, row0, t.a_bytes(), t.bn, t.bk / 2,
        t.k_steps());
  } else if (t.tf32()) {
    text += fmt::format("      // f32 tiles of {} elements a row, addressed in 16-bit units (a TF32 k8 step spans 32 "
                        "bytes)\n", t.bk);
    text += fmt::format(
        "      wgmma_k_block_tf32<{}, Swizzle::b128, Swizzle::b128>(acc, OperandTile{{stage, {}, {}, {}}},\n"
        "          OperandTile{{stage + {}, {}, {}, 0}}, {}, kb > 0);\n",
        t.bn, t.bm, t.bk * 2, row0, t.a_bytes(), t.bn, t.bk * 2, t.k_steps());
  } else {
    if (k.chain_k_blocks > 0)
      text += fmt::format("      // the first {} k-blocks are {}'s, the others {}'s: the same slots, one sum\n", k.chain_k_blocks,
                          plan.matmuls[0].c, plan.matmuls[1].c);
    for (std::size_t i : k.accumulators) {
      const StageOperand& a = k.operands[static_cast<std::size_t>(k.a_of[i])];
      const StageOperand& b = k.operands[static_cast<std::size_t>(k.b_of[i])];
      text += fmt::format(
          "      wgmma_k_block<{}, {}, {}, {}, Swizzle::b128, Swizzle::b128>({}, OperandTile{{stage{}, {}, {}, {}}},\n"
          "          OperandTile{{stage + {}, {}, {}, 0}}, {}, kb > 0);\n",
          in, t.bn, a.major, b.major, acc_name(k, plan, i), a.offset ? fmt::format(" + {}", a.offset) : "", t.bm, t.bk, row0,
          b.offset, t.bn, t.bk, t.k_steps());
    }
  }
  if (k.accumulators.size() == 1)
    text += "      wgmma_wait<1>();  // k-block kb - 1's wgmma retired: its stage may be refilled\n";
  else
    text += fmt::format("      wgmma_wait<{}>();  // k-block kb - 1's groups (one per matmul) retired: its stage may be refilled\n",
                        k.accumulators.size());
  text += release_stage(k, "      ", fmt::format("(it - 1) % {}", s), "kb > 0", "");
  text += "    }\n";
  text += "    wgmma_wait<0>();\n";
  text += release_stage(k, "    ", fmt::format("(it - 1) % {}", s), "", "  // the tile's last k-block retired");
  for (std::size_t i : k.accumulators) text += fmt::format("    wgmma_fence_operand({});\n", acc_name(k, plan, i));
  if (t.pingpong()) text += "    mbarrier_arrive(order + (1 - wg));  // the other consumer's turn at the main loop\n";
  text += consumer_epilogue(program, plan, k);
  if (t.pingpong()) text += fmt::format("    it += {};  // the other consumer's tile\n    ++turn;\n", k.k_blocks);
  text += "  }\n" + cluster_exit(k, "  ");
  return text;
}

}  // namespace

std::string hopper_gemm_kernel(const Program& program, const KernelPlan& plan, const MainLoopChoice& choice,
                               const HopperGemmTiles& t, const HopperTileSchedule& schedule, const HopperGather* gather) {
  PF_INTERNAL_CHECK(!gather || (choice.a_copy == OperandCopy::threads && plan.matmuls.size() == 1 && !schedule.clustered() &&
                                plan.matmuls[0].a_layout == OperandLayout::row_major && !plan.matmuls[0].a_prologue),
                    "a gathered A is one matmul's K-major A, copied by threads, without a cluster");
  const bool chain = plan.matmuls.size() == 2 && plan.matmuls[1].accumulates_into == plan.matmuls[0].c;
  std::vector<std::size_t> accumulators;
  for (std::size_t i = 0; i < plan.matmuls.size(); ++i)
    if (plan.matmuls[i].accumulates_into.empty()) accumulators.push_back(i);
  PF_INTERNAL_CHECK(accumulators.size() == static_cast<std::size_t>(t.matmuls) && t.matmuls <= 2 && (!chain || t.matmuls == 1),
                    "the Hopper main loop takes one matmul, two in one k-loop, or two added into one accumulator, as its "
                    "tiles say");
  PF_INTERNAL_CHECK(!chain || (!choice.any_thread_copy() && plan.matmuls[0].a_layout == plan.matmuls[1].a_layout &&
                               plan.matmuls[0].b_layout == plan.matmuls[1].b_layout && !schedule.clustered()),
                    "a chain of two matmuls loads every operand by TMA, in one layout per operand, without a cluster");
  PF_INTERNAL_CHECK(t.matmuls == 1 || !choice.any_thread_copy(), "several matmuls load every operand by TMA");
  PF_INTERNAL_CHECK(choice.loop == MainLoop::tma_wgmma && (choice.a_copy == OperandCopy::tma || choice.b_copy == OperandCopy::tma),
                    "the Hopper main loop loads A or B by TMA");
  PF_INTERNAL_CHECK(schedule.group >= 1, "tile groups of at least one tile row");
  PF_INTERNAL_CHECK(!schedule.clustered() || (schedule.cluster_blocks() == 2 && t.matmuls == 1 && !choice.any_thread_copy() &&
                                              plan.matmuls[0].dims.batch.empty()),
                    "clusters of 2 blocks on one unbatched matmul whose operands TMA loads (gpu_options)");
  const MatmulStage& mm = plan.matmuls[0];
  const std::int64_t m = bound_size(program, mm.dims.m_extent).value, n = bound_size(program, mm.dims.n_extent).value,
                     k = bound_size(program, *mm.dims.k_extent).value;
  // the chain's second matmul: its k-blocks follow the first's
  const std::int64_t k_second = chain ? bound_size(program, *plan.matmuls[1].dims.k_extent).value : 0;
  const std::string in = cuda_type(program.find_tensor(mm.a)->type);
  const int s = t.stages;
  PF_INTERNAL_CHECK(t.fp8() == is_fp8(program.find_tensor(mm.a)->type) &&
                        t.tf32() == (program.find_tensor(mm.a)->type == ElementType::f32),
                    "the tiles' element size is the operands'");
  PF_INTERNAL_CHECK(!(t.fp8() || t.tf32()) || (t.matmuls == 1 && mm.a_layout == OperandLayout::row_major &&
                                                mm.b_layout == OperandLayout::col_major && !choice.any_thread_copy()),
                    "FP8 and TF32 operands: one matmul's, K-major, loaded by TMA (main_loop_choice)");
  // A stage: each matmul's A tile (unless it shares the one before), then its B tile.
  std::vector<StageOperand> operands;
  std::vector<int> a_of, b_of;
  int offset = 0;
  // Appends matmul mi's operand 'A' or 'B' at the stage's next free byte; its index.
  const std::int64_t first_k_blocks = (k + t.bk - 1) / t.bk;
  const auto add = [&](const MatmulStage& mi, char operand) {
    const bool is_a = operand == 'A';
    const bool second = chain && &mi == &plan.matmuls[1];  // in the first's slots, from k-block first_k_blocks
    const int at = second ? (is_a ? operands[0].offset : operands[1].offset) : offset;
    StageOperand o = stage_operand(operand_source(mi, operand), is_a ? choice.a_copy : choice.b_copy, at,
                                   is_a ? mi.a_layout == OperandLayout::row_major : mi.b_layout == OperandLayout::col_major,
                                   is_a ? "m0" : "n0", is_a ? t.bm : t.bn, t.bk, t.box_inner(), is_a ? m : n,
                                   second ? k_second : k);
    if (second) {
      const std::string from = fmt::format("kb * {}", t.bk), to = fmt::format("(kb - {}) * {}", first_k_blocks, t.bk);
      if (o.inner0 == from) o.inner0 = to;
      if (o.outer0 == from) o.outer0 = to;
    }
    o.prologue = prologue_functor(program, mi, operand);
    o.batched = operand_batches(program, o.name) > 0;
    o.box_inner = t.box_inner();
    o.multicast = (is_a ? schedule.cluster_n : schedule.cluster_m) > 1;  // 1x2 shares A, 2x1 shares B
    if (is_a && gather) o.gather = gather->input;
    if (!second) offset += o.bytes();
    operands.push_back(o);
    return static_cast<int>(operands.size()) - 1;
  };
  for (const MatmulStage& mi : plan.matmuls) {
    a_of.push_back(mi.shares_a_with_previous && !a_of.empty() ? a_of.back() : add(mi, 'A'));
    b_of.push_back(add(mi, 'B'));
  }
  PF_INTERNAL_CHECK(offset == t.stage_bytes(), "the stage holds every operand's tile");
  const StageOperand& a = operands[0];
  const StageOperand& b = operands[static_cast<std::size_t>(b_of[0])];
  PF_INTERNAL_CHECK((a.prologue.empty() || a.copy != OperandCopy::tma) && (b.prologue.empty() || b.copy != OperandCopy::tma),
                    "an operand with a prologue is copied by the threads or transformed where TMA loaded it");
  PF_INTERNAL_CHECK(t.prologue_in_place == choice.any_prologue_in_place() &&
                        (!t.prologue_in_place || (!choice.any_thread_copy() && !schedule.clustered() && t.matmuls == 1 &&
                                                  !chain && !t.fp8() && !t.tf32())),
                    "a prologue applied in place: the tiles' third mbarrier, one matmul whose operands TMA loads, no "
                    "cluster");
  const StageOperand* by_threads = a.copy == OperandCopy::threads ? &a : b.copy == OperandCopy::threads ? &b : nullptr;
  std::int64_t batches = 1;
  for (const Size& e : mm.dims.batch_extents) batches *= bound_size(program, e).value;
  const KernelShape shape{t, schedule, m, n, first_k_blocks + (k_second + t.bk - 1) / t.bk, (m + t.bm - 1) / t.bm,
                          (n + t.bn - 1) / t.bn, batches, !mm.dims.batch.empty(), operands, a_of, b_of, a, b,
                          a.copy != OperandCopy::threads ? a : b, by_threads,
                          hopper_register_split(t, choice.producer_threads_work()),
                          gather, chain ? first_k_blocks : 0, accumulators};

  std::string text = fmt::format("extern \"C\" __global__ void __launch_bounds__({}, 1) {}({}) {{\n", t.threads(), program.name,
                                 parameters(program, operands));
  text += "  using namespace pf::sm90;\n  PF_DYNAMIC_SHARED_SM90(smem);\n";
  text += fmt::format(
      "  // shared memory: a ring of {} stages of {} bytes ({};\n"
      "  // 128-byte swizzle), each consumer warpgroup's epilogue staging ({} floats{}) from byte {}, then the\n"
      "  // mbarriers from byte {}: the stages' \"full\" and \"empty\", one per consumer warpgroup for its epilogue{}\n",
      s, t.stage_bytes(), stage_text(shape, plan.matmuls.size() > 1), t.wg_staging_floats(),
      t.matmuls > 1 ? fmt::format(", {} per accumulator", t.acc_staging_floats()) : "", t.ring_bytes(), t.barrier_offset(),
      std::string(t.pingpong() ? ",\n  // one per consumer for its turn at the main loop" : "") +
          (t.prologue_in_place ? ",\n  // and the stages' \"loaded\" (their TMA bytes landed, the prologue not yet applied)" : ""));
  if (t.fp8())
    text += fmt::format("  // FP8 tiles: one byte an element (A {}, B {}), a k-block of {} is one 128-byte row\n",
                        to_string(program.find_tensor(mm.a)->type), to_string(program.find_tensor(mm.b)->type), t.bk);
  if (t.tf32())
    text += fmt::format("  // f32 tiles read as TF32 by wgmma (the low 13 mantissa bits not rounded in): four bytes an\n"
                        "  // element, a k-block of {} is one 128-byte row\n", t.bk);
  text += fmt::format("  unsigned long long* full = reinterpret_cast<unsigned long long*>(smem + {});\n", t.barrier_offset());
  text += fmt::format("  unsigned long long* empty = full + {};\n", s);
  text += fmt::format("  unsigned long long* epilogue_bar = empty + {};\n", s);
  if (t.pingpong()) text += "  unsigned long long* order = epilogue_bar + 2;  // consumer wg's turn at the main loop\n";
  if (t.prologue_in_place)
    text += fmt::format("  unsigned long long* loaded = epilogue_bar + {};  // the stages' TMA bytes landed\n",
                        t.consumers() + (t.pingpong() ? 2 : 0));
  text += "  if (threadIdx.x == 0) {\n";
  text += fmt::format("    for (int s = 0; s < {}; ++s) {{\n", s);
  if (schedule.clustered())
    text += fmt::format("      mbarrier_init(full + s, 1);     // the producer's arrive_expect_tx of the whole stage, then the\n"
                        "                                      // bytes: its own and the peer's multicast half of {}\n",
                        schedule.cluster_m > 1 ? "B" : "A");
  else if (t.prologue_in_place)
    text += "      mbarrier_init(loaded + s, 1);   // the producer's arrive_expect_tx, then the bytes\n"
            "      mbarrier_init(full + s, 96);    // every thread of warps 1 .. 3 once it applied the prologue\n";
  else if (!by_threads)
    text += "      mbarrier_init(full + s, 1);     // the producer's arrive_expect_tx, then the bytes\n";
  else
    text += fmt::format("      mbarrier_init(full + s, 129);   // thread 0's arrive_expect_tx, the bytes of {}, and every\n"
                        "                                      // producer thread once its part of {} is written\n",
                        shape.by_tma.name, gather ? "A (gathered from " + gather->input + ")" : by_threads->name);
  if (schedule.clustered())
    text += fmt::format("      mbarrier_init(empty + s, {});  // every thread of the stage's consumer{}, once its wgmma retired,\n"
                        "                                      // and lane 0 of each of the peer's {} consumer warps\n",
                        132 * t.tile_consumers(), t.tile_consumers() > 1 ? "s" : "", 4 * t.tile_consumers());
  else
    text += fmt::format("      mbarrier_init(empty + s, {});  // every thread of the stage's consumer{}, once its wgmma retired\n",
                        128 * t.tile_consumers(), t.tile_consumers() > 1 ? "s" : "");
  text += "    }\n";
  if (t.consumers() > 1)
    text += fmt::format("    for (int wg = 0; wg < {}; ++wg) mbarrier_init(epilogue_bar + wg, 128);  // the warpgroup's threads\n",
                        t.consumers());
  else
    text += "    mbarrier_init(epilogue_bar, 128);  // the consumer warpgroup's threads\n";
  if (t.pingpong())
    text += "    for (int wg = 0; wg < 2; ++wg) mbarrier_init(order + wg, 128);  // the other consumer's threads\n";
  if (schedule.clustered())
    text += "    fence_mbarrier_init();\n  }\n"
            "  cluster_sync();  // both blocks' mbarriers initialised before a multicast or remote arrive reaches them\n"
            "  const int rank = static_cast<int>(cluster_ctarank()), peer = rank ^ 1;  // the block's rank in its cluster of 2\n"
            "  const int cluster = blockIdx.x / 2, clusters = gridDim.x / 2;\n";
  else
    text += "    fence_mbarrier_init();\n  }\n  __syncthreads();\n";
  if (schedule.clustered())
    text += fmt::format("  // output tiles of {} x {}: {} x {}, in cluster tiles of {} x {} tiles, each cluster's from cluster by\n"
                        "  // clusters, in groups of {} cluster-tile rows (pf::grouped_tile_at); both blocks of a cluster walk\n"
                        "  // the same k-blocks, so `it` (the ring's stage it % {}, mbarrier parity (it / {}) & 1) agrees in both\n",
                        t.bm, t.bn, shape.tiles_m, shape.tiles_n, schedule.cluster_m, schedule.cluster_n, schedule.group, s, s);
  else
    text += fmt::format("  // output tiles of {} x {}: {} x {}{}, each block's from blockIdx.x by gridDim.x, in groups of {} tile\n"
                        "  // rows (pf::grouped_tile_at); `it` counts k-blocks over the tiles, so the ring's stage it % {} and\n"
                        "  // mbarrier parity (it / {}) & 1 carry from one tile to the next\n",
                        t.bm, t.bn, shape.tiles_m, shape.tiles_n,
                        shape.batched ? fmt::format(" of each of {} batch elements,\n  // numbered batch-major", batches) : "",
                        schedule.group, s, s);
  text += producer_branch(shape, in);
  text += consumer_branch(program, plan, shape, in);
  text += "}\n";
  return text;
}

}  // namespace polyfuse
