#include "codegen/attention_kernel.h"

#include <fmt/format.h>

#include "codegen/attention_parts.h"
#include "codegen/attention_wgmma_kernel.h"
#include "codegen/cuda_expressions.h"
#include "codegen/cuda_kernel_layout.h"
#include "codegen/mma_sync_loop.h"
#include "codegen/tile_bounds.h"
#include "frontend/diagnostics.h"
#include "frontend/ir_printer.h"
#include "schedule/attention.h"

namespace polyfuse {
namespace {

constexpr int threads = 128;     // 4 warps of 16 query rows
constexpr int block_rows = 64;   // query rows of a block
constexpr int key_tile = attention_key_tile;
constexpr int scratch_bytes = 4 * 1024;  // the accumulator store's reorder scratch, 1 KiB a warp

}  // namespace

EmittedKernel emit_attention_kernel(const Program& program, const std::string& name,
                                    const std::vector<std::string>& statements, const GpuOptions& options) {
  if (has_wgmma(options.arch)) return emit_attention_wgmma_kernel(program, name, statements, options);
  refuse_split_k_and_other_mma(options, "the attention kernel", name);
  const auto found = attention_of(program, statements, options.f32_matmul);
  PF_INTERNAL_CHECK(found && std::holds_alternative<Attention>(*found), "not an attention kernel: " + name);
  const Attention& a = std::get<Attention>(*found);
  const AttentionTiles t = attention_tiles(a, options, block_rows, threads);
  const int dp = t.dp, dvp = t.dvp;
  const int scratch = t.q_bytes + t.stages * t.stage_bytes;
  const std::string type = cuda_type(a.operand_type);
  const std::string out_type = cuda_type(program.find_tensor(a.out)->type);
  const int value_frags = dvp / 8;

  EmittedKernel kernel;
  kernel.metadata = attention_launch(
      program, a, t, name, options.arch, scratch + scratch_bytes, ", the store's scratch",
      fmt::format("attention, block {} queries x {} keys, warps 4x1, mma m16n8k16, stages {}", block_rows, key_tile, t.stages));
  const LaunchMetadata& m = kernel.metadata;


  std::string& s = kernel.source;
  s += attention_kernel_head(program, a, m);
  std::string b;
  b += "PF_DYNAMIC_SHARED(smem);\n";
  b += fmt::format("// shared memory: {}'s [{}][{}] tile at byte 0; {} stage(s) of a [{}][{}] {} tile and a [{}][{}] {} "
                   "tile from byte {}; the accumulator store's scratch (1 KiB a warp) at byte {}\n",
                   a.q, block_rows, dp, t.stages, key_tile, dp, a.k, key_tile, dvp, a.v, t.q_bytes, scratch);
  b += "const int warp = threadIdx.x / 32;\n";
  b += fmt::format("const int row0 = {} * blockIdx.x;  // the block's first query\n", block_rows);
  const AttentionMemory memory = attention_memory(program, a);
  b += attention_slice_lines(memory, type);
  b += "unsigned char* const q_tile = smem;\n";
  const std::string k_copy = fmt::format("pf::cp_async_tile<pf::Swizzle::xor16, {}, {}, {}, {}, {}>", key_tile, dp, threads,
                                         t.k_check, row_width(program, a.k));
  const std::string v_copy = fmt::format("pf::cp_async_tile<pf::Swizzle::xor16, {}, {}, {}, {}, {}>", key_tile, dvp,
                                         threads, t.v_check, row_width(program, a.v));
  b += fmt::format("// {}'s tile: a commit group of its own, before the ring's\n", a.q);
  b += fmt::format("pf::cp_async_tile<pf::Swizzle::xor16, {}, {}, {}, {}, {}>(q_tile, q_base + (long long)row0 * {}, {}, "
                   "{} - row0, {}, threadIdx.x);\n",
                   block_rows, dp, threads, t.q_check, row_width(program, a.q), memory.q.ld, memory.q.ld, a.rows, a.head);
  b += "pf::cp_async_commit();\n";
  b += "pf::SoftmaxRows rows;  // the running max and sum of this lane's two rows\n";
  b += "pf::softmax_rows_start(rows);\n";
  b += fmt::format("pf::AccTile16816<1, {}> out;  // f32 accumulators of the warp's 16 x {} output rows\n", value_frags, dvp);
  b += "pf::tile::fill(out, 0.f);\n";

  std::string loop;
  loop += fmt::format("unsigned char* const k_tile = smem + {} + stage * {};\n", t.q_bytes, t.stage_bytes);
  loop += fmt::format("unsigned char* const v_tile = k_tile + {};\n", t.k_bytes);
  // scores
  const Statement& scores = *program.find_statement(a.scores);
  loop += fmt::format("// {}: the warp's 16 x {} scores\n", print_statement_source(scores), key_tile);
  loop += fmt::format("pf::AccTile16816<1, {}> score;\n", key_tile / 8);
  loop += "pf::tile::fill(score, 0.f);\n";
  loop += fmt::format("#pragma unroll\nfor (int k_slice = 0; k_slice < {}; ++k_slice) {{\n", dp / 16);
  loop += fmt::format("  pf::FragA16x16 {}_frag[1];\n  pf::FragB16x8 {}_frag[{}];\n", a.q, a.k, key_tile / 8);
  loop += fmt::format("  pf::load_frag_a<pf::Layout::row, pf::Swizzle::xor16, {}, 1>({}_frag, q_tile, 16 * warp, 16 * k_slice);\n",
                      dp, a.q);
  loop += fmt::format("  pf::load_frag_b<pf::Layout::col, pf::Swizzle::xor16, {}, {}>({}_frag, k_tile, 16 * k_slice, 0);\n",
                      dp, key_tile / 8, a.k);
  loop += fmt::format("  pf::mma_16816<{}>(score, {}_frag, {}_frag);\n", type, a.q, a.k);
  loop += "}\n";
  // the steps on the score, and the mask of keys past the end
  std::string element;
  element += "const int query = row0 + 16 * warp + static_cast<int>(pf::lane_id() / 4) + 8 * (e / 2);\n";
  element += fmt::format("const int key = {} * k_step + 8 * j + 2 * static_cast<int>(pf::lane_id() % 4) + e % 2;\n", key_tile);
  element += "float x = score.v[4 * j + e];\n";
  element += score_steps_code(program, a, memory.batch_vars);
  element += fmt::format("score.v[4 * j + e] = key < {} ? x : pf::minus_infinity();\n", a.keys);
  loop += a.score_steps.empty() ? "// keys past the end: -infinity\n"
                                : "// the steps on each score (with its query and key), keys past the end: -infinity\n";
  loop += fmt::format("#pragma unroll\nfor (int j = 0; j < {}; ++j) {{\n  #pragma unroll\n  for (int e = 0; e < 4; ++e) {{\n",
                      key_tile / 8);
  loop += indented(element, 4);
  loop += "  }\n}\n";
  loop += attention_softmax_step(program, a);
  loop += fmt::format("pf::FragA16x16 p_frag[{}];  // p ({}) as the A operand of {}; {}\n", key_tile / 16, type,
                      a.product, print_statement_source(*program.find_statement(a.row_sum)));
  loop += fmt::format("pf::probabilities_as_a<{}, {}>(score, p_frag, rows);\n", type, a.rounded_e ? "true" : "false");
  const Statement& product = *program.find_statement(a.product);
  loop += fmt::format("// {}\n", print_statement_source(product));
  loop += fmt::format("#pragma unroll\nfor (int k_slice = 0; k_slice < {}; ++k_slice) {{\n", key_tile / 16);
  loop += fmt::format("  pf::FragB16x8 {}_frag[{}];\n", a.v, value_frags);
  loop += fmt::format("  pf::load_frag_b<pf::Layout::row, pf::Swizzle::xor16, {}, {}>({}_frag, v_tile, 16 * k_slice, 0);\n",
                      dvp, value_frags, a.v);
  loop += fmt::format("  #pragma unroll\n  for (int j = 0; j < {}; ++j) pf::mma_fragment<{}>(out, 0, j, p_frag[k_slice], "
                      "{}_frag[j]);\n",
                      value_frags, type, a.v);
  loop += "}\n";
  const StepText tile_copies = [&](const std::string& step, const std::string& stage) {
    return attention_stage_copies(a, memory, t, k_copy, v_copy, step, stage);
  };
  const StageText tile_body = [&](const std::string& stage) {
    return fmt::format("const int stage = {};\n", stage) + loop;
  };
  b += attention_key_walk(a, t, tile_copies, tile_body);
  // the division and the store
  b += attention_division(program, a, 4 * value_frags);
  b += fmt::format("pf::store_accumulators<{}, {}, {}>(out, smem + {}, {} + (long long)(row0 + 16 * warp) * {}, "
                   "{}, {} - (row0 + 16 * warp), {}, 1, 0, warp, 4);\n",
                   out_type, t.o_check, row_width(program, a.out), scratch, memory.out.at, memory.out.ld, memory.out.ld,
                   a.rows, a.value_cols);
  s += indented(b, 2);
  s += "}\n\n";
  s += host_launcher(m);
  return kernel;
}

}  // namespace polyfuse
