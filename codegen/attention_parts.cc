#include "codegen/attention_parts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "codegen/cuda_expressions.h"
#include "codegen/tile_bounds.h"
#include "frontend/diagnostics.h"
#include "frontend/ir_printer.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

bool uses_index(const Expr& e, const std::string& name) {
  if (e.kind == ExprKind::index && e.index == name) return true;
  return std::any_of(e.operands.begin(), e.operands.end(), [&](const Expr& o) { return uses_index(o, name); });
}

}  // namespace

int attention_padded(std::int64_t cols) { return cols <= 32 ? 32 : cols <= 64 ? 64 : 128; }

AttentionMemory attention_memory(const Program& program, const Attention& a) {
  AttentionMemory memory;
  // the batch indices, where a step on the score or an operand's offset needs them
  const std::size_t rank = a.batch_extents.size();
  // the layout of a tensor with every batch index in order, then its row
  std::vector<int> standard(rank);
  for (std::size_t i = 0; i < rank; ++i) standard[i] = static_cast<int>(i);
  standard.push_back(attention_row);
  bool decode = a.q_layout != standard || a.k_layout != standard || a.v_layout != standard || a.out_layout != standard;
  for (const std::string& id : a.score_steps) {
    const Statement& st = *program.find_statement(id);
    for (std::size_t i = 0; i < rank; ++i) {
      decode |= uses_index(st.expr, st.write.indices[i]);
      for (const Access& r : st.reads)  // a tensor read from memory at the batch index
        if (std::find(a.on_chip.begin(), a.on_chip.end(), r.tensor) == a.on_chip.end())
          decode |= std::find(r.indices.begin(), r.indices.end(), st.write.indices[i]) != r.indices.end();
    }
  }
  {
    std::int64_t inner = 1;
    std::vector<std::string> lines(rank);
    for (std::size_t i = rank; i-- > 0;) {
      memory.batch_vars.insert(memory.batch_vars.begin(), fmt::format("batch_{}", i));
      lines[i] = fmt::format("const int batch_{} = static_cast<int>(slice{} % {});\n", i,
                             inner == 1 ? "" : fmt::format(" / {}", inner), a.batch_extents[i]);
      inner *= a.batch_extents[i];
    }
    if (decode)
      for (const std::string& line : lines) memory.batch_lines += line;
  }
  // A tensor's slice, and its row's stride: `slice` times its matrix when it holds every batch
  // index in order and then its row, else the sum of its batch indices times their strides.
  const auto slice_of = [&](const std::string& tensor, const std::vector<int>& layout) {
    const Tensor& t = *program.find_tensor(tensor);
    std::vector<std::int64_t> strides(t.dims.size(), 1);
    for (std::size_t k = t.dims.size() - 1; k-- > 0;) strides[k] = strides[k + 1] * bound_size(program, t.dims[k + 1]).value;
    const std::size_t row = static_cast<std::size_t>(std::find(layout.begin(), layout.end(), attention_row) - layout.begin());
    if (layout == standard)
      return AttentionSlice{fmt::format("{} + slice * {}", tensor, strides[row] * bound_size(program, t.dims[row]).value),
                            strides[row]};
    std::string offset;
    for (std::size_t j = 0; j < layout.size(); ++j)
      if (layout[j] != attention_row) offset += fmt::format(" + (long long)batch_{} * {}", layout[j], strides[j]);
    return AttentionSlice{tensor + offset, strides[row]};
  };
  memory.q = slice_of(a.q, a.q_layout);
  memory.k = slice_of(a.k, a.k_layout);
  memory.v = slice_of(a.v, a.v_layout);
  memory.out = slice_of(a.out, a.out_layout);
  return memory;
}

std::string score_steps_code(const Program& program, const Attention& a, const std::vector<std::string>& batch_vars) {
  std::string code;
  if (a.scale)
    code += fmt::format("x = x {} {};  // the sum's constant factor\n", a.scale_divides ? "/" : "*",
                        c_expression(*a.scale, [](int) { return std::string(); }));
  std::string steps;
  std::string score_before = program.find_statement(a.scores)->write.tensor;
  for (const std::string& id : a.score_steps) {
    const Statement& st = *program.find_statement(id);
    const auto& w = st.write.indices;
    const auto role = [&](const std::string& index_name) -> std::string {
      const std::size_t at = static_cast<std::size_t>(std::find(w.begin(), w.end(), index_name) - w.begin());
      if (at == w.size() - 1) return "key";
      if (at == w.size() - 2) return "query";
      return batch_vars.at(at);
    };
    // the score before is `x`; another tensor's element is loaded (only inside the tensors: a row
    // or key past the end reads nothing)
    const auto element_of = [&](int read) -> std::string {
      const Access& r = st.reads[static_cast<std::size_t>(read)];
      if (r.tensor == score_before) return "x";
      const Tensor& t = *program.find_tensor(r.tensor);
      std::string offset;
      for (std::size_t j = 0; j < r.indices.size(); ++j) {
        std::int64_t stride = 1;
        for (std::size_t k = j + 1; k < t.dims.size(); ++k) stride *= bound_size(program, t.dims[k]).value;
        offset += fmt::format("{}{}{}", j == 0 ? "" : " + ", stride == 1 ? "" : fmt::format("(long long){} * ", stride),
                              role(r.indices[j]));
      }
      return fmt::format("(inside ? pf::to_float(pf::ldg(&{}[{}])) : 0.f)", r.tensor, offset);
    };
    steps += fmt::format("x = {};  // {}\n", c_expression(st.expr, element_of, role), print_statement_source(st));
    score_before = st.write.tensor;
  }
  if (steps.find("(inside ?") != std::string::npos)
    code += fmt::format("const bool inside = query < {} && key < {};  // the element of the tensors the steps read\n",
                        a.rows, a.keys);
  return code + steps;
}

std::string attention_quotient(const Program& program, const Attention& a, const std::string& out, const std::string& sum) {
  if (a.division.empty()) return fmt::format("{} / {}", out, sum);
  return c_expression(program.find_statement(a.division)->expr,
                      [&](int read) { return read == 0 ? out : sum; });
}

AttentionTiles attention_tiles(const Attention& a, const GpuOptions& options, int block_rows, int threads) {
  AttentionTiles t;
  t.block_rows = block_rows;
  t.threads = threads;
  t.dp = attention_padded(a.head);
  t.dvp = attention_padded(a.value_cols);
  t.q_bytes = block_rows * t.dp * 2;
  t.k_bytes = attention_key_tile * t.dp * 2;
  t.v_bytes = attention_key_tile * t.dvp * 2;
  t.stage_bytes = t.k_bytes + t.v_bytes;
  t.tiles = (a.keys + attention_key_tile - 1) / attention_key_tile;
  t.stages = static_cast<int>(std::min<std::int64_t>(options.stages, t.tiles));
  const bool rows_cut = a.rows % block_rows != 0, keys_cut = a.keys % attention_key_tile != 0;
  t.q_check = check_argument(check_code(rows_cut, a.head != t.dp));
  t.k_check = check_argument(check_code(keys_cut, a.head != t.dp));
  t.v_check = check_argument(check_code(keys_cut, a.value_cols != t.dvp));
  t.o_check = check_argument(check_code(rows_cut, a.value_cols != t.dvp));
  return t;
}

std::string attention_slice_lines(const AttentionMemory& memory, const std::string& type, bool operand_pointers) {
  return "const long long slice = blockIdx.y;  // the batch slice\n" + memory.batch_lines +
         (operand_pointers ? fmt::format("const {}* const q_base = {};\n", type, memory.q.at) +
                                 fmt::format("const {}* const k_base = {};\n", type, memory.k.at) +
                                 fmt::format("const {}* const v_base = {};\n", type, memory.v.at)
                           : "");
}

LaunchMetadata attention_launch(const Program& program, const Attention& a, const AttentionTiles& t,
                                const std::string& name, Arch arch, int shared, const std::string& parts,
                                const std::string& options) {
  const int limit = arch_limits(arch).max_shared_bytes_per_block;
  if (shared > limit)
    throw UserError(fmt::format("the attention kernel {} needs {} bytes of shared memory per block ({}'s [{}][{}] "
                                "tile, {} stage(s) of {} and {} tiles{}); {} allows {}: use fewer stages",
                                name, shared, a.q, t.block_rows, t.dp, t.stages, a.k, a.v, parts, to_string(arch), limit));
  LaunchMetadata m;
  m.kernel = name;
  m.launcher = "polyfuse_launch_" + name;
  m.arch = to_string(arch);
  m.parameters = kernel_parameters(program);
  const std::int64_t row_blocks = (a.rows + t.block_rows - 1) / t.block_rows;
  m.grid[0] = GridDimension{row_blocks, std::to_string(row_blocks)};
  m.grid[1] = GridDimension{a.batch(), std::to_string(a.batch())};
  m.grid[2] = GridDimension{1, "1"};
  m.block[0] = t.threads;
  m.dynamic_shared_bytes = shared;
  m.options = options;
  return m;
}

std::string attention_kernel_head(const Program& program, const Attention& a, const LaunchMetadata& m, int min_blocks) {
  std::string s;
  s += fmt::format("// Generated by polyfuse from def '{}' ({}). Do not edit.\n", program.name, program.file);
  s += fmt::format("// Target {}: {}.\n", m.arch, m.options);
  s += fmt::format("// {} .. {} in one kernel, online softmax over tiles of {} keys: the scores, {} and the row sums never "
                   "reach memory.\n",
                   a.scores, a.division.empty() ? a.product : a.division, attention_key_tile, a.e);
  std::vector<std::string> maps;
  for (const KernelParameter& p : m.parameters)
    if (!p.tma_box.empty()) maps.push_back(p.name);
  s += fmt::format("// Launch: grid ({}, {}, 1), {} threads, {} bytes of dynamic shared memory{}.\n\n", m.grid[0].expression,
                   m.grid[1].expression, m.block[0], m.dynamic_shared_bytes,
                   maps.empty() ? ""
                                : fmt::format("; {} as {} that the polyfuse runtime encodes (runtime/tma), so there is no "
                                              "host launcher",
                                              maps.size() <= 2
                                                  ? fmt::format("{}", fmt::join(maps, " and "))
                                                  : fmt::format("{} and {}", fmt::join(maps.begin(), maps.end() - 1, ", "),
                                                                maps.back()),
                                              maps.size() == 1 ? "a tensor map" : "tensor maps"));
  s += fmt::format("extern \"C\" __global__ void __launch_bounds__({}{}) {}({}) {{\n", m.block[0],
                   min_blocks > 0 ? fmt::format(", {}", min_blocks) : "", m.kernel,
                   signature(m.parameters));
  return s;
}

std::string attention_stage_copies(const Attention& a, const AttentionMemory& memory, const AttentionTiles& t,
                                   const std::string& k_copy, const std::string& v_copy, const std::string& tile,
                                   const std::string& stage) {
  const std::string k_at = stage == "0" ? fmt::format("smem + {}", t.q_bytes)
                                        : fmt::format("smem + {} + {} * {}", t.q_bytes, stage, t.stage_bytes);
  const auto rows_of = [&](std::int64_t ld) {
    return tile == "0" ? std::string() : fmt::format(" + (long long){} * ({}) * {}", attention_key_tile, tile, ld);
  };
  const std::string valid =
      tile == "0" ? std::to_string(a.keys) : fmt::format("{} - {} * ({})", a.keys, attention_key_tile, tile);
  return fmt::format("{}({}, k_base{}, {}, {}, {}, threadIdx.x);\n", k_copy, k_at, rows_of(memory.k.ld), memory.k.ld, valid,
                     a.head) +
         fmt::format("{}({} + {}, v_base{}, {}, {}, {}, threadIdx.x);\n", v_copy, k_at, t.k_bytes, rows_of(memory.v.ld),
                     memory.v.ld, valid, a.value_cols);
}

std::string attention_causal_tiles(const Attention& a, const AttentionTiles& t) {
  if (!a.causal_reach || *a.causal_reach + attention_key_tile >= a.keys) return "";
  // keys past the block's last query + reach are masked to a value exp takes to 0: their tiles add nothing
  return fmt::format("// the causal mask keeps keys t <= s + {}: the tiles after the one of the block's last query's last "
                     "key add exp(-1e30 - max) = 0, and are not walked\n",
                     *a.causal_reach) +
         fmt::format("const int key_tiles = min({}, (min(row0 + {}, {}) + {}) / {} + 1);\n", t.tiles, t.block_rows - 1,
                     a.rows - 1, *a.causal_reach, attention_key_tile);
}

std::string attention_key_walk(const Attention& a, const AttentionTiles& t, const StepText& copies, const StageText& body) {
  const std::string tile_count = attention_causal_tiles(a, t);
  return fmt::format("\n// ---- the keys: {} tile(s) of {} (k_step), through a ring of {} stage(s) of {} and {} ----\n",
                     t.tiles, attention_key_tile, t.stages, a.k, a.v) +
         tile_count + k_loop(tile_count.empty() ? std::to_string(t.tiles) : "key_tiles", t.stages, copies, body);
}

std::string attention_softmax_step(const Program& program, const Attention& a) {
  return fmt::format("// {} and {} so far: p = exp(score - running max); the sums and the output rescaled\n",
                     print_statement_source(*program.find_statement(a.row_max)),
                     print_statement_source(*program.find_statement(a.exponentials))) +
         "pf::online_softmax(score, rows, out);\n";
}

std::string attention_division(const Program& program, const Attention& a, int count) {
  const Statement& division = *program.find_statement(a.division.empty() ? a.product : a.division);
  return fmt::format("\n// {}: the row sums are the quads' sums\n", print_statement_source(division)) +
         "pf::softmax_rows_finish(rows);\n" +
         fmt::format("#pragma unroll\nfor (int i = 0; i < {}; ++i) out.v[i] = {};\n", count,
                     attention_quotient(program, a, "out.v[i]", "rows.sum[(i >> 1) & 1]"));
}

}  // namespace polyfuse
