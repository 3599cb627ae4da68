#include "codegen/fragment_row_chain.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "codegen/access_offsets.h"
#include "codegen/cuda_addressing.h"
#include "codegen/cuda_expressions.h"
#include "codegen/cuda_kernel_layout.h"
#include "codegen/memory_kernel_text.h"
#include "frontend/diagnostics.h"
#include "frontend/ir_printer.h"
#include "schedule/gpu_mapping.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

std::string index_id(const std::string& name) { return "i_" + name; }

class FragmentRowChainEmitter {
 public:
  FragmentRowChainEmitter(const CudaStatementContext& c, const FusedRowChain& f, const std::string& block_row)
      : c_(c), f_(f), block_row_(block_row), row_(f.rows.rows.back()), col_(f.rows.columns.front()) {
    for (const auto& entry : c.layout.registers.storage) tile_[entry.first] = entry.second;
    for (std::size_t i = 0; i < f.rows.rows.size(); ++i) extents_[f.rows.rows[i]] = f.rows.row_extents[i];
    extents_[col_] = f.rows.column_count;
    // the block's batch element (kernel_grid.h): blockIdx.z, or its batch_i when there are several
    const std::vector<std::string> blocks = block_parameters(static_cast<int>(f.rows.rows.size()) - 1);
    for (std::size_t i = 0; i + 1 < f.rows.rows.size(); ++i)
      batch_.emplace_back(f.rows.rows[i], blocks[i] == "blockIdx_z" ? "blockIdx.z" : blocks[i]);
  }

  FragmentRowChainText emit() {
    const GpuOptions& o = c_.options;
    FragmentRowChainText out;
    std::string& text = out.text;
    text += fmt::format("  // the row chain on the accumulator fragments: the block tile spans the row ({} of {} "
                        "columns)\n",
                        f_.row_length, o.block.n);
    for (const std::string& id : f_.chain) {
      const Statement& s = *c_.program.find_statement(id);
      text += fmt::format("  //   {}: {}\n", s.id, print_statement_source(s));
    }
    text += "  __syncthreads();  // the k-steps' shared tiles are free from here on\n";
    for (const auto& [index, block] : batch_)
      text += fmt::format("  const int {} = {};  // the block's batch element\n", index_id(index), block);
    text += fmt::format("  const int chain_block_row = {} * warp_y + (threadIdx.x % 32) / 4;  // this lane's first row "
                        "in the block tile\n",
                        o.warp.m);
    text += fmt::format("  const int chain_row0 = {} * {} + chain_block_row;  // ... in the tensor (fragment rows + 16 i "
                        "+ 8 h)\n",
                        o.block.m, block_row_);
    text += fmt::format("  const int chain_col0 = {} * warp_x + 2 * (threadIdx.x % 4);  // its first column (+ 8 j + "
                        "e % 2)\n",
                        o.warp.n);
    const int warps = c_.layout.warps_x * c_.layout.warps_y * c_.layout.split_k;
    partials_offset_ = c_.layout.scratch_offset + 1024 * warps;
    int most_reductions = 0;
    for (const RowStep& step : f_.rows.steps) {
      int reductions = 0;
      for (const std::string& id : step.statements)
        reductions += is_reduction(*c_.program.find_statement(id)) ? 1 : 0;
      most_reductions = std::max(most_reductions, reductions);
    }
    if (most_reductions > 0 && c_.layout.warps_x > 1)
      text += fmt::format("  float* const row_partials = reinterpret_cast<float*>(smem + {});  // [reduction][row of the "
                          "block][warp_x], past the accumulator scratch\n",
                          partials_offset_);
    for (const RowStep& step : f_.rows.steps) text += step.loop ? loop(step) : row_statement(step);
    const int partials = c_.layout.warps_x > 1 ? most_reductions * o.block.m * c_.layout.warps_x * 4 : 0;
    out.shared_bytes = std::max(c_.layout.shared_bytes, partials_offset_ + partials);
    return out;
  }

 private:
  bool is_reduction(const Statement& s) const { return s.is_reduction() && !s.reduction_indices().empty(); }
  bool is_element(const Statement& s) const { return is_element_statement(f_.rows, s); }
  bool is_output(const std::string& tensor) const { return c_.program.find_tensor(tensor)->role == TensorRole::output; }
  std::int64_t extent(const std::string& index) const { return extents_.at(index); }
  // The rows of one batch element.
  std::int64_t matrix_rows() const { return extents_.at(row_); }
  // Columns of the block tile past the row: reductions skip them.
  bool has_padding_columns() const { return f_.row_length != c_.options.block.n; }

  std::vector<std::int64_t> shape(const std::string& tensor) const {
    std::vector<std::int64_t> extents;
    for (const Size& dim : c_.program.find_tensor(tensor)->dims) extents.push_back(bound_size(c_.program, dim).value);
    return extents;
  }

  // `i_m < M && ...` for the indices of `access` (the lanes' rows and columns past the tensor;
  // a batch index is always inside).
  std::string inside(const Access& access) const {
    std::vector<std::string> conditions;
    for (const std::string& index : access.indices)
      if (index == row_ || index == col_) conditions.push_back(fmt::format("{} < {}", index_id(index), extent(index)));
    return conditions.empty() ? "true" : fmt::format("{}", fmt::join(conditions, " && "));  // a scalar: always
  }

  std::string read(const Access& access, bool element) const {
    const auto tile = tile_.find(access.tensor);
    if (tile != tile_.end()) return fmt::format("{}.frag(i, j)[e]", tile->second);
    if (row_values_.count(access.tensor)) return fmt::format("{}_row[i][{}]", access.tensor, element ? "e / 2" : "h");
    const std::string pointer =
        fmt::format("&{}[{}]", access.tensor, row_major_offset(access, shape(access.tensor), index_id));
    return fmt::format("pf::to_float(pf::ldg_pred({}, {}))", pointer, inside(access));
  }

  std::string value(const Statement& s, bool element) const {
    // index values are the element's batch, row and column variables (defined where used)
    return c_expression(s.expr, [&](int r) { return read(s.reads.at(static_cast<std::size_t>(r)), element); }, index_id);
  }

  // Whether a chain statement after `s` reads `tensor`.
  bool read_after(const Statement& s, const std::string& tensor) const {
    bool after = false;
    for (const std::string& id : f_.chain) {
      const Statement& later = *c_.program.find_statement(id);
      if (after && std::any_of(later.reads.begin(), later.reads.end(), [&](const Access& a) { return a.tensor == tensor; }))
        return true;
      after = after || id == s.id;
    }
    return false;
  }

  // Whether a statement of the chain writes `tensor`.
  bool written_by_chain(const std::string& tensor) const {
    return std::any_of(f_.chain.begin(), f_.chain.end(),
                       [&](const std::string& id) { return c_.program.find_statement(id)->write.tensor == tensor; });
  }

  // The register tile of element statement `s`: in place over a tile it reads that nothing
  // later reads (and that holds no output of the chain, stored after the loop), else a new
  // one (declared into `declarations`).
  std::string tile_for(const Statement& s, std::string& declarations) {
    for (const Access& a : s.reads) {
      const auto tile = tile_.find(a.tensor);
      if (tile == tile_.end() || read_after(s, a.tensor) || (is_output(a.tensor) && written_by_chain(a.tensor)))
        continue;
      bool shared = false;  // another tensor still read later lives in the same tile
      for (const auto& [tensor, name] : tile_) shared = shared || (name == tile->second && tensor != a.tensor && read_after(s, tensor));
      if (shared) continue;
      return tile->second;
    }
    const std::string name = s.write.tensor + "_tile";
    declarations += fmt::format("  {} {};  // this warp's values of {}\n", c_.layout.accumulator_type(), name, s.write.tensor);
    return name;
  }

  // The loop over the thread's fragment values around `body` (lines indented by 8).
  std::string element_loop(const std::string& body) const {
    const CudaKernelLayout& l = c_.layout;
    std::string text = fmt::format("  #pragma unroll\n  for (int i = 0; i < {}; ++i) {{\n", l.fragments_m);
    text += fmt::format("    #pragma unroll\n    for (int j = 0; j < {}; ++j) {{\n", l.fragments_n);
    text += fmt::format("      #pragma unroll\n      for (int e = 0; e < {}; ++e) {{\n", l.values_per_fragment);
    if (body.find(index_id(row_)) != std::string::npos)
      text += fmt::format("        const int {} = chain_row0 + 16 * i + 8 * (e / 2);\n", index_id(row_));
    if (body.find(index_id(col_)) != std::string::npos)
      text += fmt::format("        const int {} = chain_col0 + 8 * j + e % 2;\n", index_id(col_));
    return text + body + "      }\n    }\n  }\n";
  }

  // The loop over the rows the thread holds (16 i + 8 h) around `body` (lines indented by 6).
  std::string row_loop(const std::string& body) const {
    std::string text = fmt::format("  #pragma unroll\n  for (int i = 0; i < {}; ++i) {{\n", c_.layout.fragments_m);
    text += "    #pragma unroll\n    for (int h = 0; h < 2; ++h) {\n";
    if (body.find(index_id(row_)) != std::string::npos)
      text += fmt::format("      const int {} = chain_row0 + 16 * i + 8 * h;\n", index_id(row_));
    return text + body + "    }\n  }\n";
  }

  // The store of row value `tensor` (its statement `s`), by lane 0 of each quad of the row's first warp.
  std::string row_store(const Statement& s) const {
    const Tensor& t = *c_.program.find_tensor(s.write.tensor);
    const std::string v = s.write.tensor + "_row[i][h]";
    const std::string converted = t.type == ElementType::f32 ? v : fmt::format("pf::from_float<{}>({})", cuda_type(t.type), v);
    return row_loop(fmt::format("      pf::stg_pred(&{}[{}], {}, threadIdx.x % 4 == 0 && warp_x == 0 && {});\n",
                                s.write.tensor, row_major_offset(s.write, shape(s.write.tensor), index_id), converted,
                                inside(s.write)));
  }

  // The store of element output `tensor` from its tile.
  std::string tile_store(const std::string& tensor) const {
    const GpuOptions& o = c_.options;
    const bool rows = matrix_rows() % o.block.m != 0, cols = has_padding_columns();
    std::vector<std::string> origin;  // the block tile's first element: its batch element, row, column 0
    for (const auto& entry : batch_) origin.push_back(index_id(entry.first));
    origin.push_back(fmt::format("{} * {}", o.block.m, block_row_));
    origin.push_back("0");
    origin.push_back(std::to_string((rows ? 1 : 0) + (cols ? 2 : 0)));
    return "  " + print_tile_store(c_, tile_.at(tensor), tensor, origin) + "\n";
  }

  std::string loop(const RowStep& step) {
    std::string declarations, body, after;
    std::vector<const Statement*> reductions;
    for (const std::string& id : step.statements) {
      const Statement& s = *c_.program.find_statement(id);
      const std::string& t = s.write.tensor;
      if (is_reduction(s)) {
        reductions.push_back(&s);
        declarations += fmt::format("  float {}_row[{}][2];  // this thread's {} of its rows\n", t,
                                    c_.layout.fragments_m, t);
        const std::string update =
            fmt::format("{}_row[i][e / 2] = {};", t, reduction_combine(s.reduction, t + "_row[i][e / 2]", value(s, true)));
        body += has_padding_columns() ? fmt::format("        if ({} < {}) {}\n", index_id(col_), f_.row_length, update)
                                      : "        " + update + "\n";
        continue;
      }
      const std::string tile = tile_for(s, declarations);
      body += fmt::format("        {}.frag(i, j)[e] = {};\n", tile, as_read_back(c_.program, s, value(s, true)));
      tile_[t] = tile;
      if (is_output(t)) after += tile_store(t);
    }
    std::string text = fmt::format("  // {}: over the thread's fragment values\n", fmt::join(step.statements, ", "));
    text += declarations;
    for (const Statement* s : reductions)
      text += row_loop(fmt::format("      {}_row[i][h] = {};\n", s->write.tensor, reduction_identity(s->reduction)));
    text += element_loop(body) + after;
    if (!reductions.empty()) text += combine(reductions);
    for (const Statement* s : reductions) {
      const std::string v = s->write.tensor + "_row[i][h]";
      if (const std::string read_back = as_read_back(c_.program, *s, v); read_back != v)
        text += row_loop(fmt::format("      {} = {};  // as stored: what later reads see\n", v, read_back));
      row_values_.insert(s->write.tensor);
      if (is_output(s->write.tensor)) text += row_store(*s);
    }
    return text;
  }

  // "" or "R + ": the first row of reduction `r`'s partials.
  std::string first_row(std::size_t r) const {
    return r == 0 ? "" : fmt::format("{} + ", r * static_cast<std::size_t>(c_.options.block.m));
  }

  // The step's reductions across the quad of lanes of a row, then across the warps of the row.
  std::string combine(const std::vector<const Statement*>& reductions) const {
    const CudaKernelLayout& l = c_.layout;
    std::vector<std::string> names;
    for (const Statement* s : reductions) names.push_back(s->write.tensor);
    std::string text = fmt::format("  // {} across the 4 lanes of a quad (they hold the same rows){}\n", fmt::join(names, ", "),
                                   l.warps_x > 1 ? fmt::format(", then across the {} warps of the row", l.warps_x) : "");
    std::string quad;
    for (std::size_t r = 0; r < reductions.size(); ++r) {
      const std::string v = names[r] + "_row[i][h]";
      for (const int mask : {1, 2})
        quad += fmt::format("      {} = {};\n", v,
                            reduction_combine(reductions[r]->reduction, v,
                                              fmt::format("__shfl_xor_sync(0xffffffffu, {}, {})", v, mask)));
      if (l.warps_x > 1)
        quad += fmt::format("      if (threadIdx.x % 4 == 0) pf::sts(&row_partials[({}chain_block_row + 16 * i + 8 * h) * "
                            "{} + warp_x], {});\n",
                            first_row(r), l.warps_x, v);
    }
    text += row_loop(quad);
    if (l.warps_x == 1) return text;
    text += "  __syncthreads();\n";
    std::string across;
    for (std::size_t r = 0; r < reductions.size(); ++r) {
      const std::string v = names[r] + "_row[i][h]";
      const std::string at = fmt::format("({}chain_block_row + 16 * i + 8 * h) * {}", first_row(r), l.warps_x);
      across += fmt::format("      {} = pf::lds(&row_partials[{}]);\n", v, at);
      across += fmt::format("      for (int w = 1; w < {}; ++w) {} = {};\n", l.warps_x, v,
                            reduction_combine(reductions[r]->reduction, v, fmt::format("pf::lds(&row_partials[{} + w])", at)));
    }
    text += row_loop(across);
    text += "  __syncthreads();  // the partials are read before the next step writes them\n";
    return text;
  }

  std::string row_statement(const RowStep& step) {
    const Statement& s = *c_.program.find_statement(step.statements.front());
    std::string text = fmt::format("  // {}: for each row the thread holds\n", s.id);
    text += fmt::format("  float {}_row[{}][2];\n", s.write.tensor, c_.layout.fragments_m);
    text += row_loop(fmt::format("      {}_row[i][h] = {};\n", s.write.tensor, as_read_back(c_.program, s, value(s, false))));
    row_values_.insert(s.write.tensor);
    if (is_output(s.write.tensor)) text += row_store(s);
    return text;
  }

  const CudaStatementContext& c_;
  const FusedRowChain& f_;
  const std::string block_row_;
  const std::string row_, col_;                 // the chain's row and column index
  std::map<std::string, std::int64_t> extents_; // of the chain's indices
  std::vector<std::pair<std::string, std::string>> batch_;  // batch index -> the block's (blockIdx.z, batch_i)
  std::map<std::string, std::string> tile_;     // element tensor -> its register tile
  std::set<std::string> row_values_;            // row tensors computed so far (NAME_row[i][h])
  int partials_offset_ = 0;
};

}  // namespace

FragmentRowChainText fragment_row_chain(const CudaStatementContext& context, const FusedRowChain& fused,
                                        const std::string& block_row) {
  PF_INTERNAL_CHECK(context.options.mma == MmaShape::m16n8k16 && context.layout.split_k == 1,
                    "a fused row chain needs m16n8k16 fragments and no split-K");
  return FragmentRowChainEmitter(context, fused, block_row).emit();
}

}  // namespace polyfuse
