#include "schedule/cpu_row_chains.h"

#include <algorithm>
#include <set>

#include "schedule/cpu_first_touch.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

// The threads a chain's blocks are cut for when the plan's count is unset (OpenMP's default, not
// known when the code is generated): the code stays the same on every machine.
constexpr std::int64_t kUnknownThreads = 8;

// One stage as the chain sees it: its statements' accesses, by tensor, with whether each is at
// the stage's own row.
struct RowAccesses {
  std::int64_t extent = 0;                   // the stage's rows
  std::set<std::string> written;             // tensors it writes, each at its row
  std::set<std::string> elsewhere;           // tensors it reads (also) at other rows
  std::set<std::string> touched;             // everything it reads or writes
};

const Statement* find_statement(const Program& program, const std::string& id) {
  for (const Statement& statement : program.statements)
    if (statement.id == id) return &statement;
  return nullptr;
}

// A loop nest's accesses: its row is its outer written index, the write's first subscript.
std::optional<RowAccesses> loop_nest_accesses(const Program& program, const CpuLoopNest& nest) {
  const Statement* statement = find_statement(program, nest.statement);
  if (statement == nullptr || !nest.serial.empty() || nest.outer.empty() || statement->write.indices.empty() ||
      statement->write.indices.front() != nest.outer)
    return std::nullopt;
  RowAccesses accesses;
  for (const IterationIndex& index : statement->indices)
    if (index.name == nest.outer) accesses.extent = bound_size(program, index.extent).value;
  accesses.written.insert(statement->write.tensor);
  accesses.touched.insert(statement->write.tensor);
  for (const Access& read : statement->reads) {
    const bool at_row = !read.is_index && !read.subscripts.empty() && read.subscripts.front().plain_index() == nest.outer &&
                        !read.outside_value;
    if (!at_row) accesses.elsewhere.insert(read.tensor);
    accesses.touched.insert(read.tensor);
  }
  return accesses;
}

// A blocked stage's accesses: its row is the block's m, or its n when it has no m (a statement
// writing one value per row, cross_entropy's lse(m) = mx(m) + log(s(m))); only stages of
// pointwise statements.
std::optional<RowAccesses> blocked_accesses(const CpuStage& stage) {
  if (!stage.matmuls.empty() || stage.pad || stage.permute || stage.loop_nest || !stage.batch_names.empty() ||
      (stage.m_name.empty() && stage.n_name.empty()) || stage.pointwise.empty())
    return std::nullopt;
  const CpuDim row = stage.m_name.empty() ? CpuDim::n : CpuDim::m;
  RowAccesses accesses;
  accesses.extent = row == CpuDim::m ? stage.m_extent : stage.n_extent;
  for (const CpuPointwise& pointwise : stage.pointwise) {
    if (pointwise.write.dims.empty() || pointwise.write.dims.front() != row) return std::nullopt;
    accesses.written.insert(pointwise.write.tensor);
    accesses.touched.insert(pointwise.write.tensor);
    for (const CpuAccess& read : pointwise.reads) {
      const bool at_row = !read.dims.empty() && read.dims.front() == row;
      if (!at_row) accesses.elsewhere.insert(read.tensor);
      accesses.touched.insert(read.tensor);
    }
  }
  return accesses;
}

std::optional<RowAccesses> row_accesses(const Program& program, const CpuStage& stage) {
  if (stage.loop_nest) return loop_nest_accesses(program, *stage.loop_nest);
  return blocked_accesses(stage);
}

// Whether stages with `accesses` run block by block: every tensor one of them writes is read by
// none of them at another row, and has the chain's rows as its first dimension.
bool chains(const CpuPlan& plan, const std::vector<RowAccesses>& accesses) {
  std::set<std::string> written;
  for (const RowAccesses& stage : accesses) written.insert(stage.written.begin(), stage.written.end());
  for (const RowAccesses& stage : accesses) {
    if (stage.extent != accesses.front().extent) return false;
    for (const std::string& tensor : stage.elsewhere)
      if (written.count(tensor)) return false;
  }
  for (const std::string& tensor : written) {
    const std::vector<std::int64_t>& shape = plan.tensor(tensor).shape;
    if (shape.empty() || shape.front() != accesses.front().extent) return false;
  }
  return true;
}

// The row block of `chain`: half of L2 holds a block of every tensor it touches by rows, and the
// threads get 4 blocks each.
std::int64_t chain_rows(const CpuPlan& plan, const std::vector<RowAccesses>& accesses, const CpuScheduleOptions& options,
                        CpuRowChain& chain) {
  std::set<std::string> touched;
  for (const RowAccesses& stage : accesses) touched.insert(stage.touched.begin(), stage.touched.end());
  for (const std::string& name : touched) {
    const CpuTensor& tensor = plan.tensor(name);
    if (tensor.shape.empty() || tensor.shape.front() != chain.extent) continue;
    std::int64_t row = 4;  // f32 and wider-kept temporaries; f16 inputs overestimated
    for (std::size_t d = 1; d < tensor.shape.size(); ++d) row *= tensor.shape[d];
    chain.row_bytes += row;
  }
  std::int64_t rows = std::max<std::int64_t>(1, options.target.l2_bytes / 2 / std::max<std::int64_t>(1, chain.row_bytes));
  if (!chain.parallel) return std::min(rows, chain.extent);
  const std::int64_t threads = plan.threads > 0 ? plan.threads : kUnknownThreads;
  rows = std::min(rows, std::max<std::int64_t>(1, chain.extent / (4 * threads)));
  // Evened out over the threads: a count of blocks that is a multiple of the threads, each as
  // long as the count allows. OpenMP's static schedule gives each thread as many blocks, so no
  // thread runs a block more than another: 1024 rows of a layer norm at 63 rows a block were 17
  // blocks on 2 threads, 567 rows for one of them and 457 for the other (57 rows: 513 and 511).
  // (With the count unset, a multiple of 8 blocks is one of 1, 2 and 4 threads too.)
  std::int64_t blocks = (chain.extent + rows - 1) / rows;
  blocks = (blocks + threads - 1) / threads * threads;
  return std::max<std::int64_t>(1, (chain.extent + blocks - 1) / blocks);
}

// The full temporaries that only the chain's stages touch and that its first stage touching
// them writes whole (every block writes its rows before reading them), while a block of them
// stays within L2: they become chain temporaries (CpuStorage::chain_local). Softmax's e and a
// layer norm's d (4 MiB at 1024 x 1024 f32) then never leave L2: written and read in blocks of
// 128 KiB, not written to memory and read back (layer norm 0.25 -> 0.22 ms on one core).
void keep_temporaries_in_the_chain(CpuPlan& plan, CpuRowChain& chain, std::int64_t l2_bytes) {
  for (CpuTensor& tensor : plan.tensors) {
    if (tensor.storage != CpuStorage::full_temporary || tensor.shape.empty() || tensor.shape.front() != chain.extent)
      continue;
    bool inside = false, outside = false;
    for (std::size_t i = 0; i < plan.stages.size(); ++i) {
      if (!stage_touches(plan.stages[i], tensor.name)) continue;
      (i >= chain.first && i <= chain.last ? inside : outside) = true;
    }
    std::int64_t block_bytes = chain.rows * static_cast<std::int64_t>(size_in_bytes(tensor.type));
    for (std::size_t d = 1; d < tensor.shape.size(); ++d) block_bytes *= tensor.shape[d];
    if (!inside || outside || block_bytes > l2_bytes || !first_touch_writes_all(plan, tensor)) continue;
    tensor.storage = CpuStorage::chain_local;
    chain.temporaries.push_back(tensor.name);
  }
}

}  // namespace

void form_row_chains(CpuPlan& plan, const Program& program, const CpuScheduleOptions& options) {
  std::size_t first = 0;
  while (first < plan.stages.size()) {
    std::vector<RowAccesses> accesses;
    std::size_t last = first;
    for (std::size_t i = first; i < plan.stages.size(); ++i) {
      std::optional<RowAccesses> stage = row_accesses(program, plan.stages[i]);
      if (!stage) break;
      accesses.push_back(std::move(*stage));
      if (!chains(plan, accesses)) {
        accesses.pop_back();
        break;
      }
      last = i;
    }
    if (accesses.size() < 2) {
      ++first;
      continue;
    }
    CpuRowChain chain;
    chain.first = first, chain.last = last;
    chain.extent = accesses.front().extent;
    const CpuStage& head = plan.stages[first];
    chain.index = head.loop_nest ? head.loop_nest->outer : head.m_name.empty() ? head.n_name : head.m_name;
    for (std::size_t i = first; i <= last; ++i) chain.flops += plan.stages[i].flops;
    chain.parallel = chain.flops >= options.min_parallel_flops;
    chain.rows = chain_rows(plan, accesses, options, chain);
    for (std::size_t i = first; i <= last; ++i) {
      CpuStage& stage = plan.stages[i];
      stage.row_chain = plan.row_chains.size();
      stage.parallel = chain.parallel;
      if (!stage.loop_nest) (stage.m_name.empty() ? stage.blocking.nc : stage.blocking.mc) = chain.rows;
    }
    keep_temporaries_in_the_chain(plan, chain, options.target.l2_bytes);
    plan.row_chains.push_back(chain);
    first = last + 1;
  }
}

}  // namespace polyfuse
