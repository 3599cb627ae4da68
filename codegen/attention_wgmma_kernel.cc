#include "codegen/attention_wgmma_kernel.h"

#include <fmt/format.h>

#include <algorithm>

#include "codegen/attention_parts.h"
#include "codegen/attention_producer.h"
#include "codegen/cuda_expressions.h"
#include "codegen/cuda_kernel_layout.h"
#include "codegen/mma_sync_loop.h"
#include "codegen/tile_bounds.h"
#include "frontend/diagnostics.h"
#include "frontend/ir_printer.h"
#include "schedule/attention.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

constexpr int warpgroup_rows = 64;  // query rows of a warpgroup (wgmma's M)
constexpr int key_tile = attention_key_tile;  // the scores' N

// The swizzle of a canonical tile whose rows hold `cols` (padded) 16-bit elements: one atom
// column of 64 bytes for 32, of 128 bytes (one or two) for 64 and 128.
std::string swizzle_of(int cols) { return cols == 32 ? "pf::sm90::Swizzle::b64" : "pf::sm90::Swizzle::b128"; }

}  // namespace

EmittedKernel emit_attention_wgmma_kernel(const Program& program, const std::string& name,
                                          const std::vector<std::string>& statements, const GpuOptions& options) {
  refuse_split_k_and_other_mma(options, "the attention kernel", name);
  PF_INTERNAL_CHECK(has_wgmma(options.arch), "the wgmma attention kernel needs sm_90a: " + name);
  const auto found = attention_of(program, statements, options.f32_matmul);
  PF_INTERNAL_CHECK(found && std::holds_alternative<Attention>(*found), "not an attention kernel: " + name);
  const Attention& a = std::get<Attention>(*found);
  const int warpgroups = a.rows > warpgroup_rows ? 2 : 1;  // the consumers
  AttentionTiles t = attention_tiles(a, options, warpgroup_rows * warpgroups, 128 * warpgroups);
  // --stages S: the copies S - 1 tiles ahead (at least one), as the mma.sync kernel's; the ring
  // holds two tiles more (the one whose scores run and the one whose P·V still reads its V), or
  // every tile when there are fewer
  const int ahead = std::max(1, options.stages - 1);
  t.stages = static_cast<int>(std::min<std::int64_t>(ahead + 2, t.tiles));
  const OperandMaps maps = operand_maps(program, a, statements, t);
  const bool tma = maps.refusal.empty();
  if (tma) t.threads += 128;  // the producer warpgroup
  const int dp = t.dp, dvp = t.dvp, block_rows = t.block_rows, threads = t.threads;
  const int q_tile_bytes = warpgroup_rows * dp * 2;  // a warpgroup's rows of Q
  const int ring_end = t.q_bytes + t.stages * t.stage_bytes;
  const int staging_bytes = warpgroups * warpgroup_rows * dvp * 4;  // the output's f32 staging, over the tiles
  // with TMA: the stages' full and empty mbarriers, Q's, and the consumers' barrier, after both
  const int barriers_at = (std::max(ring_end, staging_bytes) + 7) / 8 * 8;
  const int shared = tma ? barriers_at + 8 * (2 * t.stages + 2) : std::max(ring_end, staging_bytes);
  const std::string type = cuda_type(a.operand_type);
  const std::string sq = swizzle_of(dp), sv = swizzle_of(dvp);

  EmittedKernel kernel;
  kernel.metadata =
      attention_launch(program, a, t, name, options.arch, shared, tma ? ", their mbarriers" : "",
                       fmt::format("attention, block {} queries x {} keys, {} warpgroup(s){}, wgmma m64n{}k16 and "
                                   "m64n{}k16, stages {}, {}, {} and {} by {}",
                                   block_rows, key_tile, warpgroups, tma ? " and a producer" : "", key_tile, dvp,
                                   t.stages, a.q, a.k, a.v, tma ? "TMA" : "cp.async"));
  if (tma) {  // Q, K and V reach the kernel as tensor maps (boxes of 64 columns by 64 rows)
    for (KernelParameter& p : kernel.metadata.parameters)
      if (p.name == a.q || p.name == a.k || p.name == a.v) {
        p.tma_box = {64, key_tile};
        p.c_type = "const __grid_constant__ pf::sm90::TensorMap";
      }
    kernel.metadata.launcher.clear();  // the runtime encodes the maps: no host launcher
  }
  const LaunchMetadata& m = kernel.metadata;
  const AttentionMemory memory = attention_memory(program, a);
  const std::string tile_count = attention_causal_tiles(a, t);
  const std::string count = tile_count.empty() ? std::to_string(t.tiles) : "key_tiles";
  const Statement& scores = *program.find_statement(a.scores);

  // the previous tile's P·V in flight while this tile's scores run: its V stays in its stage one
  // tile longer, so the copies run `ahead` tiles ahead in a ring of ahead + 2 stages
  const auto pv = [&](const std::string& tile) {
    return fmt::format("pf::sm90::wgmma_rs_k_block<{}, {}, pf::sm90::Major::mn, {}>(out, p_frag, "
                       "pf::sm90::OperandTile{{window + {} + ({}) % {} * {} + {}, {}, {}, 0}});\n",
                       type, dvp, sv, t.q_bytes, tile, t.stages, t.stage_bytes, t.k_bytes, dvp, key_tile);
  };
  // a tile's work once its K and V landed: the scores, the previous tile's P·V beside them, the
  // steps and the softmax; `release`: after the previous P·V retired
  std::string tile;
  tile += fmt::format("const pf::sm90::OperandTile k_operand{{window + {} + k_step % {} * {}, {}, {}, 0}};  // B = {}ᵀ: "
                      "K-major\n",
                      t.q_bytes, t.stages, t.stage_bytes, key_tile, dp, a.k);
  tile += fmt::format("// {}: the warpgroup's 64 x {} scores\n", print_statement_source(scores), key_tile);
  tile += fmt::format("pf::sm90::WgAcc<{}> score;\n", key_tile);
  tile += fmt::format("pf::sm90::wgmma_k_block<{}, {}, pf::sm90::Major::k, pf::sm90::Major::k, {}, {}>(score, q_operand, "
                      "k_operand, {}, false);\n",
                      type, key_tile, sq, sq, dp / 16);
  tile += "if (k_step > 0) {\n";
  tile += fmt::format("  // the previous tile's {} (B = {}: MN-major), while these scores run\n",
                      print_statement_source(*program.find_statement(a.product)), a.v);
  tile += "  " + pv("k_step - 1");
  tile += "  pf::sm90::wgmma_wait<1>();  // the scores retired (the older group); P·V may still run\n";
  tile += "} else {\n  pf::sm90::wgmma_wait<0>();\n}\n";
  tile += "pf::sm90::wgmma_fence_operand(score);\n";
  std::string element;
  element += "int row, col;\n";
  element += fmt::format("pf::sm90::WgAcc<{}>::wg_coord(pf::sm90::thread_in_warpgroup(), i, row, col);\n", key_tile);
  element += "const int query = wg_row0 + row;\n";
  element += fmt::format("const int key = {} * k_step + col;\n", key_tile);
  element += "float x = score.v[i];\n";
  element += score_steps_code(program, a, memory.batch_vars);
  element += fmt::format("score.v[i] = key < {} ? x : pf::minus_infinity();\n", a.keys);
  tile += a.score_steps.empty() ? "// keys past the end: -infinity\n"
                                : "// the steps on each score (with its query and key), keys past the end: -infinity\n";
  tile += fmt::format("#pragma unroll\nfor (int i = 0; i < {}; ++i) {{\n", key_tile / 2);
  tile += indented(element, 2);
  tile += "}\n";
  tile += fmt::format("// {} and {} so far: p = exp(score - running max), the sums rescaled; then, once the previous "
                      "P·V retired, the output\n",
                      print_statement_source(*program.find_statement(a.row_max)),
                      print_statement_source(*program.find_statement(a.exponentials)));
  tile += "float scale[2];\npf::softmax_tile(score, rows, scale);\n";
  tile += "pf::sm90::wgmma_wait<0>();  // the previous P·V retired: out and p_frag are free\n";
  if (tma)
    tile += fmt::format("if (k_step > 0) pf::sm90::mbarrier_arrive(empty + (k_step - 1) % {});  // and tile k_step - 1's "
                        "stage: the producer may refill it\n",
                        t.stages);
  tile += "pf::sm90::wgmma_fence_operand(out);\npf::rescale_rows(out, scale);\n";
  tile += fmt::format("// p ({}) as the A operand of {} (the next step's, or after the loop); {}\n", type, a.product,
                      print_statement_source(*program.find_statement(a.row_sum)));
  tile += fmt::format("pf::sm90::probabilities_as_wg_a<{}, {}>(score, p_frag, rows);\n", type,
                      a.rounded_e ? "true" : "false");
  const std::string accumulators =
      "pf::SoftmaxRows rows;  // the running max and sum of this thread's two rows\n"
      "pf::softmax_rows_start(rows);\n" +
      fmt::format("pf::sm90::WgAcc<{}> out;  // f32 accumulators of the warpgroup's 64 x {} output rows\n", dvp, dvp) +
      "pf::sm90::wg_fill(out, 0.f);\n";
  const std::string walk_head =
      fmt::format("\n// ---- the keys: {} tile(s) of {} (k_step) through a ring of {} stage(s) of {} and {}{}; tile "
                  "k_step's scores run while tile k_step - 1's P·V does (FlashAttention-3's overlap in a warpgroup) "
                  "----\n",
                  t.tiles, key_tile, t.stages, a.k, a.v,
                  tma ? ", filled by the producer as the consumers release its stages"
                      : fmt::format(", the copies {} tile(s) ahead", ahead));

  std::string& s = kernel.source;
  s += attention_kernel_head(program, a, m, tma ? 1 : 0);  // setmaxnreg: the entry's register count from the bounds
  std::string b;
  b += "PF_DYNAMIC_SHARED_SM90(smem);\n";
  b += fmt::format("const int row0 = {} * blockIdx.x;  // the block's first query\n", block_rows);
  b += attention_slice_lines(memory, type, !tma);
  b += tile_count;
  if (tma) {
    b += fmt::format("// shared memory (wgmma's canonical tiles): a [64][{}] tile of {} a consumer warpgroup from byte 0; "
                     "{} stage(s) of a [{}][{}] {} tile (K-major) and a [{}][{}] {} tile (MN-major) from byte {}; the "
                     "consumers' f32 output staging ({} bytes a warpgroup) over them once every tile retired; the "
                     "mbarriers from byte {}\n",
                     dp, a.q, t.stages, key_tile, dp, a.k, key_tile, dvp, a.v, t.q_bytes, warpgroup_rows * dvp * 4,
                     barriers_at);
    b += attention_producer(a, t, maps, warpgroups, count, barriers_at);
    b += "// the consumer warpgroups: registers from the producer, then 64 queries each\n";
    b += "pf::sm90::setmaxnreg_inc<232>();\n";
    b += "const int warpgroup = static_cast<int>(pf::sm90::warpgroup_index()) - 1;  // its 64 queries\n";
    b += fmt::format("const int wg_row0 = row0 + {} * warpgroup;  // the warpgroup's first query\n", warpgroup_rows);
    b += "const unsigned window = pf::sm90::shared_window_address(smem);\n";
    b += fmt::format("// the warpgroup's rows of {} (the A operand of the scores, from shared memory)\n", a.q);
    b += fmt::format("const pf::sm90::OperandTile q_operand{{window + {} * warpgroup, 64, {}, 0}};\n", q_tile_bytes, dp);
    b += accumulators;
    b += walk_head;
    b += fmt::format("pf::sm90::mbarrier_wait(q_full, 0u);  // {}'s tiles landed\n", a.q);
    b += fmt::format("pf::sm90::WgFragA p_frag[{}];  // the probabilities of the tile before, A of its P·V\n", key_tile / 16);
    b += fmt::format("#pragma unroll 1\nfor (int k_step = 0; k_step < {}; ++k_step) {{\n", count);
    b += indented(fmt::format("pf::sm90::mbarrier_wait(full + k_step % {}, static_cast<unsigned>(k_step / {}) & 1u);  // "
                              "tile k_step's {} and {} landed\n",
                              t.stages, t.stages, a.k, a.v) +
                      tile,
                  2);
    b += "}\n";
  } else {
    b += fmt::format("// shared memory (wgmma's canonical tiles): {}'s [{}][{}] tile at byte 0; {} stage(s) of a [{}][{}] "
                     "{} tile (K-major) and a [{}][{}] {} tile (MN-major) from byte {}; after the keys, the output's f32 "
                     "staging ({} bytes a warpgroup) over them\n",
                     a.q, block_rows, dp, t.stages, key_tile, dp, a.k, key_tile, dvp, a.v, t.q_bytes,
                     warpgroup_rows * dvp * 4);
    b += "const int warpgroup = static_cast<int>(pf::sm90::warpgroup_index());  // its 64 queries\n";
    b += fmt::format("const int wg_row0 = row0 + {} * warpgroup;  // the warpgroup's first query\n", warpgroup_rows);
    b += "const unsigned window = pf::sm90::shared_window_address(smem);\n";
    const std::string k_copy = fmt::format("pf::sm90::cp_async_canonical_tile<{}, {}, {}, {}, {}, {}>", sq, key_tile, dp,
                                           threads, t.k_check, row_width(program, a.k));
    const std::string v_copy = fmt::format("pf::sm90::cp_async_canonical_tile<{}, {}, {}, {}, {}, {}>", sv, key_tile,
                                           dvp, threads, t.v_check, row_width(program, a.v));
    b += fmt::format("// {}'s tile: a commit group of its own, before the ring's\n", a.q);
    b += fmt::format("pf::sm90::cp_async_canonical_tile<{}, {}, {}, {}, {}, {}>(smem, q_base + (long long)row0 * {}, {}, "
                     "{} - row0, {}, threadIdx.x);\n",
                     sq, block_rows, dp, threads, t.q_check, row_width(program, a.q), memory.q.ld, memory.q.ld, a.rows,
                     a.head);
    b += "pf::cp_async_commit();\n";
    b += fmt::format("// the warpgroup's rows of {} (the A operand of the scores, from shared memory)\n", a.q);
    b += fmt::format("const pf::sm90::OperandTile q_operand{{window, {}, {}, {} * warpgroup}};\n", block_rows, dp,
                     warpgroup_rows);
    b += accumulators;
    b += walk_head;
    b += fmt::format("#pragma unroll\nfor (int k_step = 0; k_step < {}; ++k_step) {{  // the prologue: one commit group "
                     "a tile (empty past the end)\n",
                     ahead);
    b += fmt::format("  if (k_step < {}) {{\n", count);
    b += indented(attention_stage_copies(a, memory, t, k_copy, v_copy, "k_step", "k_step"), 4);
    b += "  }\n  pf::cp_async_commit();\n}\n";
    std::string head;
    head += "pf::cp_async_wait<" + std::to_string(ahead - 1) + ">();\n";
    head += "pf::sm90::fence_proxy_async();  // the copies, for the async proxy (wgmma reads them)\n";
    head += "__syncthreads();  // tile k_step landed; every warpgroup is done with tile k_step - 2 (its P·V retired)\n";
    head += fmt::format("if (k_step + {} < {}) {{\n", ahead, count);
    head += indented(attention_stage_copies(a, memory, t, k_copy, v_copy, fmt::format("k_step + {}", ahead),
                                            fmt::format("((k_step + {}) % {})", ahead, t.stages)),
                     2);
    head += "}\npf::cp_async_commit();\n";
    b += fmt::format("pf::sm90::WgFragA p_frag[{}];  // the probabilities of the tile before, A of its P·V\n", key_tile / 16);
    b += fmt::format("#pragma unroll 1\nfor (int k_step = 0; k_step < {}; ++k_step) {{\n", count);
    b += indented(head + tile, 2);
    b += "}\n";
  }
  b += fmt::format("// the last tile's {}\n", print_statement_source(*program.find_statement(a.product)));
  b += pv(count + " - 1");
  b += "pf::sm90::wgmma_wait<0>();\npf::sm90::wgmma_fence_operand(out);\n";
  // the division and the store
  b += attention_division(program, a, dvp / 2);
  const bool wide = row_width(program, a.out) == "pf::Width::b128";
  b += fmt::format("// the warpgroup's rows through its f32 staging (over the tiles: every wgmma has retired{}), {}\n",
                   tma ? ", the consumers' barrier says so" : "", wide ? "16 bytes a store" : "an element a store");
  b += fmt::format("pf::sm90::store_wg_acc_staged<{}>(out, reinterpret_cast<float*>(smem) + {} * warpgroup, {} + "
                   "(long long)wg_row0 * {}, {}, {} - wg_row0, {}{});\n",
                   wide ? "true" : "false", warpgroup_rows * dvp, memory.out.at, memory.out.ld, memory.out.ld, a.rows,
                   a.value_cols, tma ? ", pf::sm90::WarpgroupBarrier{consumers_bar}" : "");
  s += indented(b, 2);
  s += "}\n\n";
  if (!tma) s += host_launcher(m);
  return kernel;
}

}  // namespace polyfuse
