#include "codegen/hopper_epilogue.h"

#include <algorithm>
#include <map>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "codegen/cuda_expressions.h"
#include "codegen/cuda_kernel_layout.h"
#include "frontend/diagnostics.h"
#include "frontend/element_type.h"
#include "frontend/ir_printer.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {

namespace {

// Batch index `position` of `dims` recovered from the linearised batch coordinate `batch`.
std::string batch_index(const Program& program, const StatementDims& dims, std::size_t position) {
  std::int64_t inner = 1;
  for (std::size_t e = position + 1; e < dims.batch_extents.size(); ++e) inner *= bound_size(program, dims.batch_extents[e]).value;
  const std::int64_t extent = bound_size(program, dims.batch_extents[position]).value;
  std::string value = inner == 1 ? "batch" : fmt::format("batch / {}", inner);
  if (position > 0) value = fmt::format("{} % {}", value, extent);  // the outermost needs no remainder
  return position > 0 || inner > 1 ? "(" + value + ")" : value;
}

// The element offset of a row-major tensor's element read or written with `indices` by a
// statement whose batch, row and column indices are dims' (bound extents): the row index as
// pf_m, the column index as `column`.
std::string element_offset(const Program& program, const Tensor& tensor, const std::vector<std::string>& indices,
                           const StatementDims& dims, const std::string& column) {
  std::string offset;
  for (std::size_t d = 0; d < indices.size(); ++d) {
    const std::string& index = indices[d];
    std::int64_t stride = 1;
    for (std::size_t e = d + 1; e < tensor.dims.size(); ++e) stride *= bound_size(program, tensor.dims[e]).value;
    std::string term;
    if (index == dims.m) term = "pf_m";
    else if (index == dims.n) term = column;
    else {
      const auto at = std::find(dims.batch.begin(), dims.batch.end(), index);
      PF_INTERNAL_CHECK(at != dims.batch.end(), "an epilogue access indexed by the batch, row and column indices only");
      term = batch_index(program, dims, static_cast<std::size_t>(at - dims.batch.begin()));
    }
    const std::string scaled = stride == 1 ? term : fmt::format("static_cast<long long>({}) * {}", term, stride);
    offset += (offset.empty() ? "" : " + ") + scaled;
  }
  return offset.empty() ? "0" : offset;
}

// True when the elements of `indices` at columns n_first .. n_first + E - 1 are consecutive and
// every row of them starts 16 bytes aligned (n the last index, named once; every stride but the
// last a multiple of 16 bytes), of a type pf::ldg_chunk / stg_chunk move (f32, f16, bf16).
bool moves_in_chunks(const Program& program, const Tensor& tensor, const std::vector<std::string>& indices,
                     const StatementDims& dims) {
  if (tensor.type != ElementType::f32 && tensor.type != ElementType::f16 && tensor.type != ElementType::bf16) return false;
  if (indices.empty() || indices.back() != dims.n || std::count(indices.begin(), indices.end(), dims.n) != 1) return false;
  return indices.size() == 1 || bound_size(program, tensor.dims.back()).value * size_in_bytes(tensor.type) % 16 == 0;
}

// How one tensor access of the epilogue reaches its values.
enum class Form { chunk, elements, scalar };  // 128-bit chunk, E elements alone, one value for the chunk

struct EpilogueRead {
  std::string tensor;
  std::vector<std::string> indices;  // as the reading statement names them
  StatementDims dims;                // the reading statement's
  std::vector<std::string> roles;    // each index as "m", "n" or "b<position>": the read's identity
  Form form = Form::scalar;
  bool per_tile = false;  // no row index: loaded once, before the rows
  std::string name;       // the variable holding it
};

struct Writer {
  Writer(const Program& p, const KernelPlan& k, int columns) : program(p), plan(k), e(columns) {}
  const Program& program;
  const KernelPlan& plan;
  int e;                             // columns of a chunk
  std::vector<EpilogueRead> reads;       // every distinct tensor read, in order of first use
  std::map<std::string, int> names;      // variables named so far, by stem

  std::string fresh(const std::string& stem) {
    const int count = ++names[stem];
    return count == 1 ? stem : fmt::format("{}{}", stem, count);
  }
  bool written_by_epilogue(const std::string& tensor) const {
    return std::any_of(plan.epilogue.begin(), plan.epilogue.end(), [&](const PointwiseStage& s) { return s.output == tensor; });
  }

  // The read of `access` by a statement of `dims`, added to `reads` on its first use.
  const EpilogueRead& read_of(const Access& access, const StatementDims& dims) {
    std::vector<std::string> roles;
    for (const std::string& index : access.indices) {
      const auto at = std::find(dims.batch.begin(), dims.batch.end(), index);
      roles.push_back(index == dims.m ? "m" : index == dims.n ? "n" : fmt::format("b{}", at - dims.batch.begin()));
    }
    for (const EpilogueRead& r : reads)
      if (r.tensor == access.tensor && r.roles == roles) return r;
    const Tensor& tensor = *program.find_tensor(access.tensor);
    EpilogueRead r;
    r.tensor = access.tensor;
    r.indices = access.indices;
    r.dims = dims;
    r.roles = roles;
    const bool has_m = std::count(r.indices.begin(), r.indices.end(), dims.m) > 0;
    const bool has_n = std::count(r.indices.begin(), r.indices.end(), dims.n) > 0;
    r.form = !has_n ? Form::scalar : moves_in_chunks(program, tensor, r.indices, dims) ? Form::chunk : Form::elements;
    r.per_tile = !has_m && !written_by_epilogue(r.tensor);
    r.name = fresh(r.tensor + (r.per_tile ? "_c" : "_r"));
    reads.push_back(r);
    return reads.back();
  }

  // The lines loading `r` for the chunk at columns n_first.. of row pf_m, where `count` (a C
  // variable) of its elements lie inside C.
  // The lines loading `r` for the chunk at columns n_first.. of row pf_m, `count` of whose
  // elements lie inside C: none, possibly, before the row loop (per tile), at least one in it.
  std::string load(const EpilogueRead& r, const std::string& indent) const {
    const Tensor& tensor = *program.find_tensor(r.tensor);
    const std::string source = print_read_source(r), at = element_offset(program, tensor, r.indices, r.dims, "n_first");
    const std::string base = r.per_tile ? fmt::format("{} + (count > 0 ? {} : 0)", r.tensor, at) : r.tensor + " + " + at;
    if (r.form == Form::scalar)
      return r.per_tile ? fmt::format("{}const float {} = pf::to_float(pf::ldg_pred({}, count > 0));  // {}, once per tile\n",
                                      indent, r.name, base, source)
                        : fmt::format("{}const float {} = pf::to_float(pf::ldg({}));  // {}\n", indent, r.name, base, source);
    std::string text = fmt::format("{}float {}[{}];  // {}{}{}\n", indent, r.name, e, source,
                                   r.form == Form::chunk ? "" : ", element by element", r.per_tile ? ", once per tile" : "");
    if (r.form == Form::chunk) return text + fmt::format("{}pf::ldg_chunk({}, {}, count);\n", indent, base, r.name);
    return text + fmt::format("{}#pragma unroll\n{}for (int j = 0; j < {}; ++j)\n"
                              "{}  {}[j] = pf::to_float(pf::ldg_pred({} + (j < count ? {} : 0), j < count));\n",
                              indent, indent, e, indent, r.name, r.tensor,
                              element_offset(program, tensor, r.indices, r.dims, "(n_first + j)"));
  }

  std::string print_read_source(const EpilogueRead& r) const {
    std::string text = r.tensor + "(";
    for (std::size_t i = 0; i < r.indices.size(); ++i) text += (i ? ", " : "") + r.indices[i];
    return text + ")";
  }

  // The store of `values` (a float[e]) to `tensor` at `indices`.
  std::string store(const Tensor& tensor, const std::vector<std::string>& indices, const StatementDims& dims,
                    const std::string& values, const std::string& indent) const {
    if (moves_in_chunks(program, tensor, indices, dims))
      return fmt::format("{}pf::stg_chunk({} + {}, {}, count);\n", indent, tensor.name,
                         element_offset(program, tensor, indices, dims, "n_first"), values);
    return fmt::format("{}#pragma unroll\n{}for (int j = 0; j < {}; ++j)\n"
                       "{}  pf::stg_pred({} + (j < count ? {} : 0), pf::from_float<{}>({}[j]), j < count);\n",
                       indent, indent, e, indent, tensor.name, element_offset(program, tensor, indices, dims, "(n_first + j)"),
                       cuda_type(tensor.type), values);
  }
};

// The matmul C's accesses as the epilogue stores them: C(batch.., m, n).
std::vector<std::string> result_indices(const MatmulStage& mm) {
  std::vector<std::string> indices = mm.dims.batch;
  indices.push_back(mm.dims.m);
  indices.push_back(mm.dims.n);
  return indices;
}

}  // namespace

int hopper_epilogue_chunk(const Program& program, const KernelPlan& plan) {
  int e = 4;
  const auto widen = [&](const std::string& name, const std::vector<std::string>& indices, const StatementDims& dims) {
    const Tensor& tensor = *program.find_tensor(name);
    if (moves_in_chunks(program, tensor, indices, dims)) e = std::max(e, 16 / size_in_bytes(tensor.type));
  };
  for (const MatmulStage& mm : plan.matmuls)
    if (mm.live_out) widen(mm.c, result_indices(mm), mm.dims);
  for (const PointwiseStage& stage : plan.epilogue) {
    const Statement* statement = program.find_statement(stage.dims.statement);
    PF_INTERNAL_CHECK(statement != nullptr, "no statement " + stage.dims.statement);
    for (const Access& read : statement->reads) widen(read.tensor, read.indices, stage.dims);
    if (stage.live_out) widen(statement->write.tensor, statement->write.indices, stage.dims);
  }
  return e;
}

std::string hopper_epilogue_tile(const Program& program, const KernelPlan& plan, const HopperEpilogueTile& tile) {
  Writer w(program, plan, hopper_epilogue_chunk(program, plan));
  const int e = w.e, chunks = tile.bn / e;
  PF_INTERNAL_CHECK(tile.bn % e == 0 && 128 % chunks == 0, "whole chunks a row, the same chunk of every row for a thread");

  // The statements' values on the chunk, in order; the reads they make are collected on the way.
  std::map<std::string, std::string> current;  // each tensor's value so far: a float[e] variable
  std::map<std::string, int> versions;
  for (const auto& [c, offset] : tile.staged) current[c] = c + "_v";
  const auto define = [&](const std::string& tensor) {
    const int version = ++versions[tensor];
    return current[tensor] = version == 1 ? tensor + "_v" : fmt::format("{}_v{}", tensor, version);
  };
  // Only a tensor's last value is stored (a tensor written again, `P = P + V`, gets `P_v2`).
  const auto written_later = [&](const std::string& tensor, std::size_t after) {
    for (std::size_t s = after; s < plan.epilogue.size(); ++s)
      if (plan.epilogue[s].output == tensor) return true;
    return false;
  };
  const std::string in_row = "        ";
  std::string body;
  for (const MatmulStage& mm : plan.matmuls) {
    versions[mm.c] = 1;
    if (mm.live_out && !written_later(mm.c, 0))
      body += w.store(*program.find_tensor(mm.c), result_indices(mm), mm.dims, mm.c + "_v", in_row);
  }
  for (std::size_t s = 0; s < plan.epilogue.size(); ++s) {
    const PointwiseStage& stage = plan.epilogue[s];
    const Statement* statement = program.find_statement(stage.dims.statement);
    PF_INTERNAL_CHECK(statement != nullptr, "no statement " + stage.dims.statement);
    // The statement's loads in the order of its reads (not of c_expression's calls below, whose
    // order is the C++ compiler's order of evaluating function arguments).
    for (const Access& access : statement->reads)
      if (!current.count(access.tensor)) w.read_of(access, stage.dims);
    // Index values (a causal mask's `t <= s`): the row pf_m, the chunk's column n_first + j, the
    // batch indices from the linearised batch coordinate.
    const auto index = [&](const std::string& name) -> std::string {
      if (name == stage.dims.m) return "pf_m";
      if (name == stage.dims.n) return "(n_first + j)";
      const auto at = std::find(stage.dims.batch.begin(), stage.dims.batch.end(), name);
      PF_INTERNAL_CHECK(at != stage.dims.batch.end(),
                        "an epilogue's index value names one of its batch, row and column indices (plan_gpu_kernel)");
      return "(" + batch_index(program, stage.dims, static_cast<std::size_t>(at - stage.dims.batch.begin())) + ")";
    };
    const std::string value = c_expression(statement->expr, [&](int read) {
      const Access& access = statement->reads[static_cast<std::size_t>(read)];
      if (const auto found = current.find(access.tensor); found != current.end()) return found->second + "[j]";
      const EpilogueRead& r = w.read_of(access, stage.dims);
      return r.form == Form::scalar ? r.name : r.name + "[j]";
    }, index);
    const std::string variable = define(stage.output);
    body += fmt::format("{}float {}[{}];  // {}\n{}#pragma unroll\n{}for (int j = 0; j < {}; ++j) {}[j] = {};\n", in_row, variable,
                        e, print_statement_source(*statement), in_row, in_row, e, variable,
                        as_read_back(program, *statement, value));
    if (stage.live_out && !written_later(stage.output, s + 1))
      body += w.store(*program.find_tensor(stage.output), statement->write.indices, stage.dims, variable, in_row);
  }

  std::string text = fmt::format(
      "    // in chunks of {} columns: thread t takes columns {} (t % {}) .. + {} of rows t / {}, t / {} + {}, ...\n", e, e,
      chunks, e - 1, chunks, chunks, 128 / chunks);
  text += "    {\n";
  text += fmt::format("      const int chunk = thread_in_warpgroup() % {}, n_first = n0 + {} * chunk;\n", chunks, e);
  text += fmt::format("      const int count = pf::imax(0, pf::imin({}, {} - n_first));  // columns of the chunk inside C\n", e,
                      tile.n);
  const bool sum = tile.row0.find(' ') != std::string::npos;
  text += fmt::format("      const int rows = count > 0 ? pf::imin(64, {} - {}{}{}) : 0;  // rows of the tile inside C\n", tile.m,
                      sum ? "(" : "", tile.row0, sum ? ")" : "");
  for (const EpilogueRead& r : w.reads)
    if (r.per_tile) text += w.load(r, "      ");
  text += fmt::format("      for (int r = thread_in_warpgroup() / {}; r < rows; r += {}) {{\n", chunks, 128 / chunks);
  text += fmt::format("        const int pf_m = {} + r;\n", tile.row0);
  for (const auto& [c, offset] : tile.staged) {
    text += fmt::format("{}float {}_v[{}];\n", in_row, c, e);
    text += fmt::format("{}pf::lds_chunk(staging + {}wg_staged_offset({}, r, {} * chunk), {}_v);\n", in_row,
                        offset ? fmt::format("{} + ", offset) : "", tile.bn, e, c);
  }
  for (const EpilogueRead& r : w.reads)
    if (!r.per_tile) text += w.load(r, in_row);
  text += body;
  text += "      }\n    }\n";
  return text;
}

std::string describe_hopper_epilogue(const Program& program, const KernelPlan& plan) {
  if (plan.matmuls.empty()) return "";
  const auto form_of = [&](const Tensor& tensor, const std::vector<std::string>& indices, const StatementDims& dims) {
    return moves_in_chunks(program, tensor, indices, dims) ? "128-bit" : "element by element";
  };
  const MatmulStage& first = plan.matmuls[0];
  if (plan.epilogue.empty() && plan.matmuls.size() == 1) {
    const Tensor& c = *program.find_tensor(first.c);
    if (!first.live_out) return fmt::format("none ({} is read by nothing: not stored)", first.c);
    return fmt::format("{} stored from the staged accumulators, {}", first.c,
                       moves_in_chunks(program, c, result_indices(first), first.dims) ? "16 bytes a store"
                                                                                      : "element by element (rows not 16-byte aligned)");
  }
  Writer w(program, plan, hopper_epilogue_chunk(program, plan));
  std::vector<std::string> stores;
  std::map<std::string, bool> computed;  // matmul results and statement outputs: values, not loads
  for (const MatmulStage& mm : plan.matmuls) computed[mm.c] = true;
  for (const MatmulStage& mm : plan.matmuls)
    if (mm.live_out)
      stores.push_back(fmt::format("{} ({})", mm.c, form_of(*program.find_tensor(mm.c), result_indices(mm), mm.dims)));
  for (const PointwiseStage& stage : plan.epilogue) {
    const Statement* statement = program.find_statement(stage.dims.statement);
    PF_INTERNAL_CHECK(statement != nullptr, "no statement " + stage.dims.statement);
    for (const Access& read : statement->reads)
      if (!computed.count(read.tensor)) w.read_of(read, stage.dims);
    computed[stage.output] = true;
    const std::string store = fmt::format("{} ({})", stage.output,
                                          form_of(*program.find_tensor(stage.output), statement->write.indices, stage.dims));
    if (stage.live_out && std::find(stores.begin(), stores.end(), store) == stores.end()) stores.push_back(store);
  }
  std::vector<std::string> reads;
  for (const EpilogueRead& r : w.reads)
    reads.push_back(fmt::format("{} ({}{})", w.print_read_source(r),
                                r.form == Form::chunk ? "128-bit" : r.form == Form::elements ? "element by element" : "one value",
                                r.per_tile ? ", once per tile" : ", each row"));
  std::string text = fmt::format("on the staged accumulators in chunks of {} columns of a row; stores {}", w.e,
                                 fmt::format("{}", fmt::join(stores, ", ")));
  if (!reads.empty()) text += fmt::format("; reads {}", fmt::join(reads, ", "));
  return text;
}

}  // namespace polyfuse
