#include "codegen/attention_producer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "codegen/main_loop_choice.h"
#include "codegen/mma_sync_loop.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

constexpr int key_tile = attention_key_tile;

// The load of a [64][cols] canonical tile of `name` (rows from `row0`) to `dst` by its map,
// completing on `bar`.
std::string tile_load(const std::string& name, const std::string& batch, const std::string& dst,
                      const std::string& row0, int cols, const std::string& bar) {
  return batch.empty()
             ? fmt::format("pf::sm90::tma_load_tile({}, {}_map, 0, {}, 64, {}, pf::sm90::Swizzle::b128, {});\n", dst,
                           name, row0, cols / 64, bar)
             : fmt::format(
                   "pf::sm90::tma_load_batched_tile({}, {}_map, 0, {}, {}, 64, {}, "
                   "pf::sm90::Swizzle::b128, {});\n",
                   dst, name, row0, batch, cols / 64, bar);
}

}  // namespace

OperandMaps operand_maps(const Program& program, const Attention& a, const std::vector<std::string>& statements,
                         const AttentionTiles& t) {
  OperandMaps maps;
  const auto refusal = [&](const std::string& name, const std::vector<int>& layout, int padded,
                           std::string& batch) -> std::string {
    const Tensor& tensor = *program.find_tensor(name);
    if (tensor.role != TensorRole::input) return fmt::format("{} is computed by the plan", name);
    if (layout.back() != attention_row) return fmt::format("{}'s rows are not its second-to-last index", name);
    if (padded < 64) return fmt::format("{}'s rows of {} columns take a 64-byte swizzle", name, padded);
    for (const std::string& id : statements) {
      const Statement& st = *program.find_statement(id);
      if (id == a.scores || id == a.product) continue;
      for (const Access& r : st.reads)
        if (r.tensor == name) return fmt::format("{} reads {}", id, name);
    }
    const std::size_t rank = tensor.dims.size();
    std::vector<std::int64_t> extents(rank);
    for (std::size_t d = 0; d < rank; ++d) extents[d] = bound_size(program, tensor.dims[d]).value;
    std::int64_t batches = rank > 2 ? 1 : 0;
    for (std::size_t d = 0; d + 2 < rank; ++d) batches *= extents[d];
    if (std::string why = tma_refusal(name, tensor.type, extents[rank - 2], extents[rank - 1], batches); !why.empty())
      return why;
    // the matrix of the slice: its batch indices times the matrices they step over
    std::vector<int> standard(a.batch_extents.size());
    for (std::size_t i = 0; i < standard.size(); ++i) standard[i] = static_cast<int>(i);
    standard.push_back(attention_row);
    if (rank == 2) {
      batch = "";
    } else if (layout == standard) {
      batch = "static_cast<int>(slice)";
    } else {
      std::int64_t matrices = 1;
      std::vector<std::string> terms;
      for (std::size_t j = rank - 2; j-- > 0;) {
        terms.insert(terms.begin(), matrices == 1 ? fmt::format("batch_{}", layout[j])
                                                  : fmt::format("batch_{} * {}", layout[j], matrices));
        matrices *= extents[j];
      }
      batch = fmt::format("{}", fmt::join(terms, " + "));
    }
    return "";
  };
  maps.refusal = refusal(a.q, a.q_layout, t.dp, maps.q_batch);
  if (maps.refusal.empty()) maps.refusal = refusal(a.k, a.k_layout, t.dp, maps.k_batch);
  if (maps.refusal.empty()) maps.refusal = refusal(a.v, a.v_layout, t.dvp, maps.v_batch);
  return maps;
}

std::string attention_producer(const Attention& a, const AttentionTiles& t, const OperandMaps& maps, int warpgroups,
                               const std::string& count, int barriers_at) {
  const int dp = t.dp, dvp = t.dvp, warpgroup_rows = 64, q_tile_bytes = warpgroup_rows * dp * 2;
  std::string text;
  text += fmt::format(
      "unsigned long long* const full = reinterpret_cast<unsigned long long*>(smem + {});  // stage s's "
      "boxes landed\n",
      barriers_at);
  text += fmt::format("unsigned long long* const empty = full + {};  // every consumer thread is done with stage s\n",
                      t.stages);
  text +=
      fmt::format("unsigned long long* const q_full = empty + {};  // the consumers' {} tiles landed\n", t.stages, a.q);
  text += "unsigned long long* const consumers_bar = q_full + 1;  // the consumer warpgroups' barrier\n";
  text += "if (threadIdx.x == 0) {\n";
  text += fmt::format("  for (int s = 0; s < {}; ++s) {{\n", t.stages);
  text += "    pf::sm90::mbarrier_init(full + s, 1);  // the producer's arrive_expect_tx, then the bytes\n";
  text += fmt::format(
      "    pf::sm90::mbarrier_init(empty + s, {});  // every consumer thread, once its P·V of the stage "
      "retired\n",
      128 * warpgroups);
  text += "  }\n";
  text += "  pf::sm90::mbarrier_init(q_full, 1);\n";
  text += fmt::format("  pf::sm90::mbarrier_init(consumers_bar, {});\n", 128 * warpgroups);
  text += "  pf::sm90::fence_mbarrier_init();\n";
  text += "}\n__syncthreads();\n";
  text += "if (pf::sm90::warpgroup_index() == 0) {\n";
  std::string producer;
  producer += fmt::format(
      "// the producer warpgroup: its registers to the consumers, then one thread loads the "
      "consumers' {} tiles and every tile of {} and {} by TMA (PTX ISA 9.7.9.27) into the ring, "
      "tile k_step into stage k_step % {}, completing on full[k_step % {}], once the consumers "
      "released the stage's previous tile on empty[k_step % {}]\n",
      a.q, a.k, a.v, t.stages, t.stages, t.stages);
  producer += "pf::sm90::setmaxnreg_dec<40>();\nif (threadIdx.x == 0) {\n";
  std::string q_loads =
      fmt::format("pf::sm90::mbarrier_arrive_expect_tx(q_full, {});  // rows past {} zero filled\n", t.q_bytes, a.rows);
  for (int wg = 0; wg < warpgroups; ++wg)
    q_loads += tile_load(a.q, maps.q_batch, wg ? fmt::format("smem + {}", wg * q_tile_bytes) : "smem",
                         wg ? fmt::format("row0 + {}", wg * warpgroup_rows) : "row0", dp, "q_full");
  producer += indented(q_loads, 2);
  producer += fmt::format("  #pragma unroll 1\n  for (int k_step = 0; k_step < {}; ++k_step) {{\n", count);
  std::string fill;
  fill += fmt::format("const int s = k_step % {};\n", t.stages);
  fill += fmt::format(
      "if (k_step >= {}) pf::sm90::mbarrier_wait(empty + s, static_cast<unsigned>(k_step / {} - 1) & "
      "1u);  // tile k_step - {} released\n",
      t.stages, t.stages, t.stages);
  fill += fmt::format("unsigned char* const stage = smem + {} + s * {};\n", t.q_bytes, t.stage_bytes);
  fill += fmt::format(
      "pf::sm90::mbarrier_arrive_expect_tx(full + s, {});  // {}'s and {}'s boxes, zero filled past "
      "the ends\n",
      t.stage_bytes, a.k, a.v);
  fill += tile_load(a.k, maps.k_batch, "stage", fmt::format("{} * k_step", key_tile), dp, "full + s");
  fill += tile_load(a.v, maps.v_batch, fmt::format("stage + {}", t.k_bytes), fmt::format("{} * k_step", key_tile), dvp,
                    "full + s");
  producer += indented(fill, 4);
  producer += "  }\n}\nreturn;\n";
  text += indented(producer, 2);
  text += "}\n";
  return text;
}

}  // namespace polyfuse
