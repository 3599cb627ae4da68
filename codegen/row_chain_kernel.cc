#include "codegen/row_chain_kernel.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <variant>

#include "codegen/access_offsets.h"
#include "codegen/cuda_expressions.h"
#include "codegen/cuda_kernel_layout.h"
#include "codegen/memory_kernel_text.h"
#include "codegen/mma_sync_loop.h"
#include "frontend/diagnostics.h"
#include "frontend/ir_printer.h"
#include "schedule/plan_from_program.h"
#include "schedule/row_chain.h"

namespace polyfuse {
namespace {

constexpr int block_threads = 256;
constexpr int warps_per_block = block_threads / 32;

std::string index_id(const std::string& name) { return "i_" + name; }

bool contains(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// Where a chain's rows come from: global memory (a plan's row-chain kernel), or, for the
// matmul result `staged`, a wgmma consumer's staged 64 x bn accumulator tile (staged_row_chain).
struct StagedRows {
  std::string tensor;  // "" in a row-chain kernel
  int bn = 0;
};

class RowChainEmitter {
 public:
  RowChainEmitter(const Program& program, RowChain chain, StagedRows staged = {})
      : program_(program), chain_(std::move(chain)), staged_(std::move(staged)) {
    for (std::size_t step = 0; step < chain_.steps.size(); ++step)
      for (const std::string& id : chain_.steps[step].statements) step_of_[program_.find_statement(id)->write.tensor] = step;
  }

  RowChainBody body() {
    RowChainBody body;
    const bool by_block = chain_.by_block;
    body.blocks = by_block ? chain_.row_count : (chain_.row_count + warps_per_block - 1) / warps_per_block;
    body.what = "row chain, " + chain_.describe();
    std::string& text = body.text;
    for (const Statement& s : program_.statements)
      text += fmt::format("  // {}: {}\n", s.id, print_statement_source(s));
    text += fmt::format("  // {}; thread t of a row handles the terms (t + {} j) * {} + v\n", chain_.describe(),
                        chain_.threads_per_row, chain_.vector);
    text += "  const int lane = threadIdx.x % 32;\n";
    if (by_block) {
      text += "  const int warp = threadIdx.x / 32;\n";
      text += "  const long long row = blockIdx.x;\n";
    } else {
      text += fmt::format("  const long long row = blockIdx.x * {}LL + threadIdx.x / 32;\n", warps_per_block);
      if (chain_.row_count % warps_per_block != 0)
        text += fmt::format("  if (row >= {}LL) return;  // the whole warp: no shuffle waits for it\n", chain_.row_count);
    }
    int reductions = 0;
    const std::string steps = all_steps(reductions);
    text += row_indices(steps) + steps;
    body.shared_bytes = by_block ? reductions * warps_per_block * 4 : 0;
    return body;
  }

  // The chain on a consumer warpgroup's staged tile: warp w takes rows w, w + 4, .. of its 64.
  std::string staged(const std::string& row0, const std::string& batch) {
    PF_INTERNAL_CHECK(!chain_.by_block && chain_.threads_per_row == 32, "a staged row chain: one warp a row");
    const std::int64_t m = chain_.row_extents.back();
    int reductions = 0;
    const std::string steps = all_steps(reductions);
    std::string text = fmt::format("    // {}; warp w of the warpgroup takes rows w, w + 4, .. of its 64, thread t of a row the terms "
                                   "(t + 32 j) * {} + v; {} from the staged accumulators\n",
                                   chain_.describe(), chain_.vector, staged_.tensor);
    text += "    {\n";
    text += "      const int lane = threadIdx.x % 32;\n";
    text += "#pragma unroll 1\n";
    text += "      for (int pf_r = static_cast<int>(warp_in_warpgroup()); pf_r < 64; pf_r += 4) {\n";
    text += fmt::format("        if ({} + pf_r >= {}) break;  // past the rows (the whole warp)\n", row0, m);
    text += fmt::format("        const long long row = {}{} + pf_r;\n", batch == "0" ? "" : fmt::format("{} * {}LL + ", batch, m),
                        row0);
    text += indented(row_indices(steps) + steps, 6);
    text += "      }\n    }\n";
    return text;
  }

 private:
  std::int64_t extent(const Size& size) const { return bound_size(program_, size).value; }

  std::vector<std::int64_t> shape(const std::string& tensor) const {
    std::vector<std::int64_t> extents;
    for (const Size& dim : program_.find_tensor(tensor)->dims) extents.push_back(extent(dim));
    return extents;
  }

  // A tensor's identifier: a kernel parameter of the plan's memory kernels, or the Hopper kernel's.
  std::string id(const std::string& tensor) const {
    return staged_.tensor.empty() ? memory_kernel_tensor_id(tensor) : tensor;
  }

  std::string all_steps(int& reductions) {
    std::string steps;
    if (chain_.in_registers)
      for (const std::string& tensor : chain_.kept)
        steps += fmt::format("  float x_{}[{}];  // this thread's terms of the row of {}\n", tensor, chain_.items(), tensor);
    for (std::size_t step = 0; step < chain_.steps.size(); ++step)
      steps += chain_.steps[step].loop ? loop(step, reductions) : row_statement(step);
    return steps;
  }

  bool written_by_chain(const std::string& tensor) const { return step_of_.count(tensor) > 0; }
  bool is_output(const std::string& tensor) const {
    return program_.find_tensor(tensor)->role == TensorRole::output;
  }
  bool kept_in_registers(const std::string& tensor) const {
    return chain_.in_registers && contains(chain_.kept, tensor);
  }
  // Whether `tensor` is an element value the chain computes (not a row value).
  bool is_element_value(const std::string& tensor) const {
    if (!written_by_chain(tensor)) return false;
    for (const std::string& sid : chain_.steps[step_of_.at(tensor)].statements) {
      const Statement& s = *program_.find_statement(sid);
      if (s.write.tensor == tensor) return is_element_statement(chain_, s);
    }
    return false;
  }

  // Declarations of `names` (of extents `extents`) decoded from `linear`, each only when `uses`
  // names its variable.
  static std::string decode(const std::vector<std::string>& names, const std::vector<std::int64_t>& extents,
                            const std::string& linear, const std::string& indent, const std::string& uses) {
    std::string text;
    std::int64_t inner = 1;
    for (std::size_t d = names.size(); d-- > 0;) {
      std::string v = inner == 1 ? linear : fmt::format("{} / {}", linear, inner);
      if (d > 0) v = fmt::format("{} % {}", v, extents[d]);
      if (uses.find(index_id(names[d])) != std::string::npos)
        text = fmt::format("{}const long long {} = {};\n", indent, index_id(names[d]), v) + text;
      inner *= extents[d];
    }
    return text;
  }

  // The row's indices, where the steps use them (their offsets of row values and other reads).
  std::string row_indices(const std::string& steps) const {
    return decode(chain_.rows, chain_.row_extents, "row", "  ", steps);
  }

  std::string term_slot() const {
    return chain_.vector > 1 ? fmt::format("j * {} + v", chain_.vector) : "j";
  }
  std::string chunk_ref(const std::string& name) const { return chain_.vector > 1 ? name + "[v]" : name; }
  std::string row_start(const std::string& tensor) const {
    return fmt::format("&{}[row * {}LL + first]", id(tensor), chain_.column_count);
  }

  std::string global_load(const Access& access) const {
    PF_INTERNAL_CHECK(access.tensor != staged_.tensor, "the staged matmul result read at its element only");
    return fmt::format("pf::to_float(pf::ldg(&{}[{}]))", id(access.tensor),
                       row_major_offset(access, shape(access.tensor), index_id));
  }

  // The value of `access` read by statement `s` (in a loop when `in_loop`).
  std::string load(const Statement& s, const Access& access) const {
    const std::string& t = access.tensor;
    if (written_by_chain(t) && !(t == s.write.tensor)) {
      if (!is_element_value(t)) return "v_" + t;
      return kept_in_registers(t) ? fmt::format("x_{}[{}]", t, term_slot()) : "v_" + t;
    }
    if (is_contiguous_row_access(program_, chain_, s, access))
      return kept_in_registers(t) ? fmt::format("x_{}[{}]", t, term_slot()) : chunk_ref("c_" + t);
    return global_load(access);
  }

  std::string value(const Statement& s) const {
    // index values are the row's and the term's index variables (decoded where used)
    return c_expression(s.expr, [&](int read) { return load(s, s.reads.at(static_cast<std::size_t>(read))); }, index_id);
  }

  std::string store(const Access& access, const std::string& v) const {
    const Tensor& tensor = *program_.find_tensor(access.tensor);
    const std::string converted =
        tensor.type == ElementType::f32 ? v : fmt::format("pf::from_float<{}>({})", cuda_type(tensor.type), v);
    return fmt::format("pf::stg(&{}[{}], {});", id(access.tensor),
                       row_major_offset(access, shape(access.tensor), index_id), converted);
  }

  // The element statements of earlier loops that loop `step` needs recomputed (rows re-read).
  std::vector<const Statement*> recomputed(std::size_t step) const {
    if (chain_.in_registers) return {};
    std::set<std::string> needed;
    for (const std::string& sid : chain_.steps[step].statements)
      for (const Access& a : program_.find_statement(sid)->reads)
        if (is_element_value(a.tensor) && step_of_.at(a.tensor) < step) needed.insert(a.tensor);
    std::vector<const Statement*> statements;
    for (std::size_t k = chain_.statements.size(); k-- > 0;) {
      const Statement& s = *program_.find_statement(chain_.statements[k]);
      if (step_of_.at(s.write.tensor) >= step || !needed.count(s.write.tensor)) continue;
      statements.insert(statements.begin(), &s);
      for (const Access& a : s.reads)
        if (is_element_value(a.tensor)) needed.insert(a.tensor);
    }
    return statements;
  }

  // One loop over the row's terms, then the row-wide combination of its reductions.
  std::string loop(std::size_t step, int& reductions) {
    const std::vector<const Statement*> again = recomputed(step);
    std::vector<const Statement*> statements;
    for (const std::string& sid : chain_.steps[step].statements) statements.push_back(program_.find_statement(sid));
    std::vector<const Statement*> all = again;
    all.insert(all.end(), statements.begin(), statements.end());
    const bool vector = chain_.vector > 1;
    const std::string in = vector ? "        " : "      ";

    std::string text = fmt::format("  // {}: a loop over the row{}\n", fmt::join(chain_.steps[step].statements, ", "),
                                   again.empty() ? "" : ", recomputing the " + names_of(again) + " they read");
    for (const Statement* s : statements)
      if (!is_element_statement(chain_, *s))
        text += fmt::format("  float v_{} = {};\n", s->write.tensor, reduction_identity(s->reduction));
    // Chunk loads: the inputs this loop reads whole (into the kept rows the first time).
    std::string loads, outputs, stores, terms;
    std::set<std::string> loaded;
    for (const Statement* s : all)
      for (const Access& a : s->reads) {
        if (written_by_chain(a.tensor) || !is_contiguous_row_access(program_, chain_, *s, a) || loaded.count(a.tensor))
          continue;
        loaded.insert(a.tensor);
        const bool kept = kept_in_registers(a.tensor);
        if (kept && !kept_loaded_.insert(a.tensor).second) continue;
        const std::string into = kept ? fmt::format("x_{}[{}]", a.tensor, vector ? fmt::format("j * {}", chain_.vector) : "j")
                                      : "c_" + a.tensor;
        if (a.tensor == staged_.tensor && vector)  // the staged f32 accumulators, 16 bytes a load
          loads += fmt::format("      {}pf::sm90::lds_staged<{}>(staging, {}, pf_r, static_cast<int>(first) - n0, {});\n",
                               kept ? "" : fmt::format("float c_{}[{}];\n      ", a.tensor, chain_.vector), chain_.vector,
                               staged_.bn, kept ? "&" + into : into);
        else if (a.tensor == staged_.tensor)
          loads += fmt::format(
              "      {}{} = pf::lds(staging + pf::sm90::wg_staged_offset({}, pf_r, static_cast<int>(first) - n0));\n",
              kept ? "" : "const float ", into, staged_.bn);
        else if (vector)
          loads += fmt::format("      {}pf::ldg_floats<{}>({}, {});\n",
                               kept ? "" : fmt::format("float c_{}[{}];\n      ", a.tensor, chain_.vector),
                               chain_.vector, row_start(a.tensor), kept ? "&" + into : into);
        else
          loads += fmt::format("      {}{} = pf::to_float(pf::ldg({}));\n", kept ? "" : "const float ", into,
                               row_start(a.tensor));
      }
    // The body for one term.
    for (const Statement* s : all) {
      const bool recompute = std::find(again.begin(), again.end(), s) != again.end();
      const std::string& t = s->write.tensor;
      if (!is_element_statement(chain_, *s)) {
        terms += fmt::format("{}v_{} = {};\n", in, t, reduction_combine(s->reduction, "v_" + t, value(*s)));
        continue;
      }
      std::string held = "v_" + t;
      if (kept_in_registers(t)) {
        held = fmt::format("x_{}[{}]", t, term_slot());
        terms += fmt::format("{}{} = {};\n", in, held, as_read_back(program_, *s, value(*s)));
      } else {
        terms += fmt::format("{}const float v_{} = {};\n", in, t, as_read_back(program_, *s, value(*s)));
      }
      if (recompute || !is_output(t)) continue;
      if (vector && is_contiguous_row_access(program_, chain_, *s, s->write)) {
        outputs += fmt::format("      float o_{}[{}];\n", t, chain_.vector);
        terms += fmt::format("{}o_{}[v] = {};\n", in, t, held);
        stores += fmt::format("      pf::stg_floats<{}>({}, o_{});\n", chain_.vector, row_start(t), t);
      } else {
        terms += in + store(s->write, held) + "\n";
      }
    }
    const std::string term = vector ? "first + v" : "first";
    const std::string columns = decode(chain_.columns, chain_.column_extents, "term", in, terms);
    const std::string thread = chain_.by_block ? "threadIdx.x" : "lane";
    text += fmt::format("  for (int j = 0; j < {}; ++j) {{\n", chain_.chunks);
    text += fmt::format("    const long long first = ({} + {}LL * j) * {};\n", thread, chain_.threads_per_row,
                        chain_.vector);
    text += fmt::format("    if (first < {}LL) {{\n", chain_.column_count);
    text += loads + outputs;
    if (vector) text += fmt::format("      for (int v = 0; v < {}; ++v) {{\n", chain_.vector);
    if (columns.find("term") != std::string::npos || terms.find("term") != std::string::npos)
      text += fmt::format("{}const long long term = {};\n", in, term);
    text += columns + terms;
    if (vector) text += "      }\n";
    text += stores;
    text += "    }\n  }\n";
    // The reductions of the loop, combined across the row's threads.
    std::vector<const Statement*> reduced;
    for (const Statement* s : statements)
      if (!is_element_statement(chain_, *s)) reduced.push_back(s);
    if (reduced.empty()) return text;
    text += fmt::format("  // {} across the row's lanes: butterfly shuffles (every lane takes part and gets the result)\n",
                        names_of(reduced));
    for (const Statement* s : reduced)
      text += fmt::format("  for (int offset = 16; offset > 0; offset /= 2) v_{0} = {1};\n", s->write.tensor,
                          reduction_combine(s->reduction, "v_" + s->write.tensor,
                                            fmt::format("__shfl_xor_sync(0xffffffffu, v_{}, offset)", s->write.tensor)));
    if (chain_.by_block) {
      text += fmt::format("  // ... and across the block's {} warps through shared memory\n", warps_per_block);
      if (reductions == 0) {
        text += "  PF_DYNAMIC_SHARED(smem);\n";
        text += "  float* const partial = reinterpret_cast<float*>(smem);  // one result per warp and reduction\n";
      }
      for (std::size_t r = 0; r < reduced.size(); ++r)
        text += fmt::format("  if (lane == 0) pf::sts(&partial[{} + warp], v_{});\n",
                            (reductions + static_cast<int>(r)) * warps_per_block, reduced[r]->write.tensor);
      text += "  __syncthreads();\n";
      for (std::size_t r = 0; r < reduced.size(); ++r) {
        const int at = (reductions + static_cast<int>(r)) * warps_per_block;
        const std::string& t = reduced[r]->write.tensor;
        text += fmt::format("  v_{} = pf::lds(&partial[{}]);\n", t, at);
        text += fmt::format("  for (int w = 1; w < {}; ++w) v_{} = {};\n", warps_per_block, t,
                            reduction_combine(reduced[r]->reduction, "v_" + t, fmt::format("pf::lds(&partial[{} + w])", at)));
      }
    }
    reductions += static_cast<int>(reduced.size());
    bool updates = false;
    for (const Statement* s : reduced)
      if (s->kind == StatementKind::reduce) {  // `op=`: from the tensor's value
        text += fmt::format("  v_{} = {};\n", s->write.tensor,
                            reduction_combine(s->reduction, global_load(s->write), "v_" + s->write.tensor));
        updates = true;
      }
    // Every thread of the row has read the old values before one of them stores the new ones.
    if (updates) text += chain_.by_block ? "  __syncthreads();\n" : "  __syncwarp();\n";
    for (const Statement* s : reduced) {
      const std::string v = "v_" + s->write.tensor;
      if (const std::string read_back = as_read_back(program_, *s, v); read_back != v)
        text += fmt::format("  {} = {};  // as stored: what later reads see\n", v, read_back);
    }
    for (const Statement* s : reduced)
      if (is_output(s->write.tensor))
        text += fmt::format("  if ({} == 0) {}\n", chain_.by_block ? "threadIdx.x" : "lane", store(s->write, "v_" + s->write.tensor));
    return text;
  }

  // A statement over the rows: every thread of the row computes it.
  std::string row_statement(std::size_t step) const {
    const Statement& s = *program_.find_statement(chain_.steps[step].statements.front());
    std::string text = fmt::format("  // {}, by every thread of the row\n", s.id);
    text += fmt::format("  const float v_{} = {};\n", s.write.tensor, as_read_back(program_, s, value(s)));
    if (is_output(s.write.tensor))
      text += fmt::format("  if ({} == 0) {}\n", chain_.by_block ? "threadIdx.x" : "lane", store(s.write, "v_" + s.write.tensor));
    return text;
  }

  static std::string names_of(const std::vector<const Statement*>& statements) {
    std::vector<std::string> names;
    for (const Statement* s : statements) names.push_back(s->write.tensor);
    return fmt::format("{}", fmt::join(names, ", "));
  }

  const Program& program_;
  const RowChain chain_;
  const StagedRows staged_;
  std::map<std::string, std::size_t> step_of_;  // tensor written by the chain -> its step
  std::set<std::string> kept_loaded_;           // kept inputs already in their x_ arrays
};

}  // namespace

std::string staged_row_chain(const Program& program, const RowChain& chain, const std::string& staged, int bn,
                             const std::string& row0, const std::string& batch) {
  return RowChainEmitter(program, chain, StagedRows{staged, bn}).staged(row0, batch);
}

RowChainBody row_chain_kernel_body(const Program& program) {
  std::vector<std::string> ids;
  for (const Statement& s : program.statements) ids.push_back(s.id);
  std::variant<RowChain, std::string> chain = row_chain_of(program, ids);
  PF_INTERNAL_CHECK(std::holds_alternative<RowChain>(chain),
                    "a row-chain kernel that is not a row chain: " + std::get<std::string>(chain));
  return RowChainEmitter(program, std::get<RowChain>(chain)).body();
}

}  // namespace polyfuse
