#include "schedule/row_chain.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

constexpr std::int64_t warp_row_terms = 1024;  // longer rows take a block
constexpr int block_threads = 256;
constexpr int vector_bytes = 16;

bool is_row_reduction(const Statement& s) { return s.is_reduction() && !s.reduction_indices().empty(); }

std::vector<std::string> written_indices(const Statement& s) {
  std::vector<std::string> names;
  for (const IterationIndex& index : s.indices)
    if (!index.is_reduction) names.push_back(index.name);
  return names;
}

std::int64_t extent_of(const Program& program, const Statement& s, const std::string& index) {
  for (const IterationIndex& i : s.indices)
    if (i.name == index) return bound_size(program, i.extent).value;
  return -1;
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

bool contains_id(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// Bytes of one element of `tensor` in memory (temporaries between kernels are f32).
int memory_bytes(const Tensor& tensor) {
  return tensor.role == TensorRole::temporary ? 4 : size_in_bytes(tensor.type);
}

}  // namespace

bool is_contiguous_row_access(const Program& program, const RowChain& chain, const Statement& s, const Access& access) {
  if (access.indices != concat(chain.rows, chain.columns)) return false;
  const Tensor& tensor = *program.find_tensor(access.tensor);
  for (std::size_t d = 0; d < tensor.dims.size(); ++d)
    if (bound_size(program, tensor.dims[d]).value != extent_of(program, s, access.indices[d])) return false;
  return true;
}

bool is_element_statement(const RowChain& chain, const Statement& s) {
  return !is_row_reduction(s) && s.index_names() == concat(chain.rows, chain.columns);
}

std::string RowChain::describe() const {
  std::string text = fmt::format("one {} per row ({} row{} of {} term{})", by_block ? "block of 8 warps" : "warp",
                                 row_count, row_count == 1 ? "" : "s", column_count, column_count == 1 ? "" : "s");
  text += vector > 1 ? fmt::format(", 128-bit accesses of {} terms", vector) : ", one access a term";
  if (kept.empty()) return text + ", each row read once";
  if (in_registers)
    return text + fmt::format(", {} kept in registers ({} floats a thread each): each row read once",
                              fmt::join(kept, ", "), items());
  return text + fmt::format(", {} re-read (and recomputed) by each loop over the row: {} floats a thread each would "
                            "not fit in registers",
                            fmt::join(kept, ", "), items());
}

std::variant<RowChain, std::string> row_chain_of(const Program& program, const std::vector<std::string>& ids) {
  RowChain chain;
  chain.statements = ids;
  const Statement* first_reduction = nullptr;
  for (const std::string& id : ids)
    if (is_row_reduction(*program.find_statement(id))) {
      first_reduction = program.find_statement(id);
      break;
    }
  if (!first_reduction) return std::string("it has no row reduction");
  chain.rows = written_indices(*first_reduction);
  chain.columns = first_reduction->reduction_indices();
  const std::vector<std::string> element = concat(chain.rows, chain.columns);
  std::vector<std::int64_t> element_extents;
  for (const std::string& index : element) element_extents.push_back(extent_of(program, *first_reduction, index));

  std::map<std::string, const Statement*> writer;  // tensors the chain wrote so far
  std::set<std::string> read;                      // tensors the chain read so far
  std::set<std::string> open_reductions;           // results of the open loop's reductions
  std::map<std::string, std::set<std::size_t>> loops_reading;  // tensor -> loops (steps) reading it
  for (const std::string& id : ids) {
    const Statement& s = *program.find_statement(id);
    const std::string where = fmt::format("{}", id);
    const bool reduction = is_row_reduction(s);
    const std::vector<std::string> names = s.index_names();
    const bool row_statement = !reduction && names == chain.rows;
    if (!reduction && !row_statement && names != element)
      return fmt::format("{} runs over ({}), neither the row's elements ({}) nor its rows ({})", where,
                         fmt::join(names, ", "), fmt::join(element, ", "), fmt::join(chain.rows, ", "));
    if (reduction && (written_indices(s) != chain.rows || s.reduction_indices() != chain.columns))
      return fmt::format("{} reduces other rows or columns than the chain's ({} over {})", where,
                         fmt::join(chain.rows, ", "), fmt::join(chain.columns, ", "));
    for (std::size_t d = 0; d < names.size(); ++d)
      if (extent_of(program, s, names[d]) != element_extents[d])
        return fmt::format("{}: index {} has another extent than in the chain", where, names[d]);
    if (s.kind == StatementKind::reduce && !reduction)
      return fmt::format("{} updates {} from its value (`{}`)", where, s.write.tensor, operator_spelling(s));
    if (writer.count(s.write.tensor) || read.count(s.write.tensor))
      return fmt::format("{} writes {}, which the chain already accesses", where, s.write.tensor);
    if (!reduction && std::any_of(s.reads.begin(), s.reads.end(), [&](const Access& a) { return a.tensor == s.write.tensor; }))
      return fmt::format("{} reads {}, which it writes", where, s.write.tensor);
    bool reads_open_reduction = false;
    for (const Access& access : s.reads) {
      if (!access.is_plain()) return fmt::format("{} reads {} through index expressions", where, access.tensor);
      if (access.tensor == s.write.tensor && reduction) continue;  // `op=`: its initial value
      const auto w = writer.find(access.tensor);
      if (w != writer.end() && access.indices != w->second->write.indices)
        return fmt::format("{} reads {} at other indices than the chain wrote it", where, access.tensor);
      reads_open_reduction = reads_open_reduction || open_reductions.count(access.tensor);
    }
    // The step of `s`: a row statement is one; a loop statement joins the open loop unless it
    // reads a reduction of that loop (which is only known after the loop).
    if (row_statement || chain.steps.empty() || !chain.steps.back().loop || reads_open_reduction) {
      chain.steps.push_back(RowStep{!row_statement, {}});
      open_reductions.clear();
    }
    chain.steps.back().statements.push_back(id);
    if (reduction) open_reductions.insert(s.write.tensor);
    for (const Access& access : s.reads) {
      read.insert(access.tensor);
      if (!row_statement) loops_reading[access.tensor].insert(chain.steps.size() - 1);
    }
    writer[s.write.tensor] = &s;
  }

  for (std::size_t d = 0; d < element.size(); ++d) {
    const bool row = d < chain.rows.size();
    (row ? chain.row_extents : chain.column_extents).push_back(element_extents[d]);
    (row ? chain.row_count : chain.column_count) *= element_extents[d];
  }
  chain.by_block = chain.column_count > warp_row_terms;
  chain.threads_per_row = chain.by_block ? block_threads : 32;

  // 128-bit accesses: by the narrowest element any contiguous row access moves.
  int narrowest = 0;
  for (const std::string& id : ids) {
    const Statement& s = *program.find_statement(id);
    for (const Access& access : s.reads)
      if (!writer.count(access.tensor) && is_contiguous_row_access(program, chain, s, access)) {
        const int bytes = memory_bytes(*program.find_tensor(access.tensor));
        narrowest = narrowest == 0 ? bytes : std::min(narrowest, bytes);
      }
    if (is_element_statement(chain, s) && is_contiguous_row_access(program, chain, s, s.write)) {
      const int bytes = memory_bytes(*program.find_tensor(s.write.tensor));
      narrowest = narrowest == 0 ? bytes : std::min(narrowest, bytes);
    }
  }
  if (narrowest > 0 && chain.column_count % (vector_bytes / narrowest) == 0) chain.vector = vector_bytes / narrowest;
  const std::int64_t per_chunk = static_cast<std::int64_t>(chain.threads_per_row) * chain.vector;
  chain.chunks = (chain.column_count + per_chunk - 1) / per_chunk;

  // Kept rows: inputs read whole by several loops, element values read by a later loop.
  for (const auto& [tensor, loops] : loops_reading) {
    if (loops.size() < 2 && !writer.count(tensor)) continue;
    const auto w = writer.find(tensor);
    if (w != writer.end()) {
      if (!is_element_statement(chain, *w->second)) continue;  // a row value: one float
      std::size_t written_in = 0;
      for (std::size_t step = 0; step < chain.steps.size(); ++step)
        if (contains_id(chain.steps[step].statements, w->second->id)) written_in = step;
      if (*loops.rbegin() == written_in) continue;  // read in its own loop only
    } else {
      bool whole_rows = true;
      for (const std::string& id : ids)
        for (const Access& access : program.find_statement(id)->reads)
          if (access.tensor == tensor)
            whole_rows = whole_rows && is_contiguous_row_access(program, chain, *program.find_statement(id), access);
      if (!whole_rows) continue;
    }
    chain.kept.push_back(tensor);
  }
  chain.in_registers = static_cast<std::int64_t>(chain.kept.size()) * chain.items() <= row_register_limit;
  return chain;
}

}  // namespace polyfuse
