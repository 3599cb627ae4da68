#include "schedule/cpu_plan.h"

#include <algorithm>
#include <map>
#include <set>

#include "frontend/diagnostics.h"
#include "frontend/ir_printer.h"
#include "schedule/cpu_constants.h"
#include "schedule/cpu_conv.h"
#include "schedule/cpu_conv_border.h"
#include "schedule/loop_nest_threads.h"
#include "schedule/cpu_epilogue.h"
#include "schedule/cpu_filter_panels.h"
#include "schedule/cpu_fold.h"
#include "schedule/cpu_in_place.h"
#include "schedule/cpu_parallel_stages.h"
#include "schedule/cpu_row_chains.h"
#include "schedule/cpu_pointwise.h"
#include "schedule/cpu_roles.h"

namespace polyfuse {

std::int64_t access_stride(const CpuAccess& access, const std::vector<std::int64_t>& strides, CpuDim dim) {
  for (std::size_t d = 0; d < access.dims.size(); ++d)
    if (access.dims[d] == dim) return strides[d];
  PF_INTERNAL_CHECK(false, "cpu plan: no such dimension in " + access.tensor);
  return 0;
}
namespace {

std::int64_t bound(const Program& program, const Size& size) {
  if (!size.is_symbolic()) return size.value;
  const auto found = program.size_bindings.find(size.symbol);
  if (found == program.size_bindings.end())
    throw UserError({Diagnostic{program.file, program.location.line, program.location.col,
                                "the CPU target needs every size bound: size " +
                                    quote_name(size.symbol) + " of def " +
                                    quote_name(program.name) + " is not (bind it with -D " +
                                    size.symbol + "=VALUE)"}});
  return found->second;
}

// `expr` with each read node r renumbered to renumbered.at(r).
Expr renumber_reads(const Expr& expr, const std::map<int, int>& renumbered) {
  Expr copy = expr;
  if (copy.kind == ExprKind::read) copy.read = renumbered.at(copy.read);
  for (Expr& operand : copy.operands) operand = renumber_reads(operand, renumbered);
  return copy;
}

// A stage being built, with what it reads and writes (for the fusion checks).
struct StageBuilder {
  CpuStage stage;
  std::vector<std::int64_t> space;  // extents of batch.., m, n as written
  std::set<std::string> written, read;
  // A convolution whose output is not batch.., m, n: only statements that write its indices
  // join it, in its roles (add_pointwise).
  bool closed = false;

  // Whether the stage touches `tensor` only at the block's element `at`: no matmul reads it as
  // an operand, and every matmul result, pointwise write and read of it is that element. A
  // pointwise statement that updates such a tensor in place (`O(m, n) = O(m, n) + bias(n)` after
  // `O(m, n) +=! ...`) may join: each block reads and writes its own elements only, in program
  // order.
  bool touches_only_at(const std::string& tensor, const CpuAccess& at) const {
    for (const CpuMatmul& matmul : stage.matmuls) {
      if (matmul.a.tensor == tensor || matmul.b.tensor == tensor) return false;
      if (matmul.c.tensor == tensor && !same_element(matmul.c, at)) return false;
    }
    for (const CpuPointwise& pointwise : stage.pointwise) {
      if (pointwise.write.tensor == tensor && !same_element(pointwise.write, at)) return false;
      for (const CpuAccess& read : pointwise.reads)
        if (read.tensor == tensor && !same_element(read, at)) return false;
    }
    return true;
  }

  // The block space's index names, outermost first.
  std::vector<std::string> names() const {
    std::vector<std::string> all = stage.batch_names;
    if (!stage.m_name.empty()) all.push_back(stage.m_name);
    if (!stage.n_name.empty()) all.push_back(stage.n_name);
    return all;
  }
};

class Planner {
 public:
  Planner(const Program& program, const CpuScheduleOptions& options)
      : program_(program), options_(options) {
    blocking_ = options.blocking.mc > 0 && options.blocking.nc > 0 && options.blocking.kc > 0
                    ? options.blocking
                    : goto_blocking(options.target);
  }

  CpuPlan run() {
    plan_.name = program_.name;
    plan_.threads = options_.threads;
    plan_.pointwise_loops = options_.pointwise_loops;
    for (const Tensor& tensor : program_.tensors) {
      CpuTensor cpu;
      cpu.name = tensor.name;
      cpu.type = tensor.type;
      cpu.role = tensor.role;
      for (const Size& dim : tensor.dims) cpu.shape.push_back(bound(program_, dim));
      plan_.tensors.push_back(cpu);
    }
    const Idioms idioms = recognize_idioms(program_);
    for (const Statement& statement : program_.statements) {
      const StatementIdiom* idiom = idioms.find(statement.id);
      PF_INTERNAL_CHECK(idiom != nullptr, "cpu plan: no idiom for " + statement.id);
      const bool matmul = idiom->kind == IdiomKind::matmul || idiom->kind == IdiomKind::batch_reduce_matmul;
      if (contains_kind(statement.expr, ExprKind::select) || contains_kind(statement.expr, ExprKind::index)) {
        add_loop_nest(statement, matmul ? "a matmul whose right-hand side has '?:' or an index value: the BRGEMM "
                                          "takes neither"
                                        : "'?:' and index values are not block primitives");
        continue;
      }
      switch (idiom->kind) {
        case IdiomKind::matmul:
        case IdiomKind::batch_reduce_matmul: add_matmul(statement, idiom->matmul); break;
        case IdiomKind::pointwise: {
          // A read the block primitives do not take (a permutation of three or more indices):
          // the statement runs as a loop nest between the blocked stages.
          if (const std::string odd = read_outside_the_block(statement); !odd.empty()) {
            add_loop_nest(statement, "its read of " + quote_name(odd) +
                                         " is not an element, a row, a column or a scalar of the block it writes");
            break;
          }
          add_pointwise(statement, pointwise_of(program_, statement));
          break;
        }
        case IdiomKind::other: {
          std::string why;
          const std::optional<ConvOverTaps> conv = conv_over_taps(program_, statement, &why);
          if (conv && add_conv(statement, *conv, why)) break;
          const bool affine = std::any_of(statement.reads.begin(), statement.reads.end(),
                                          [](const Access& read) { return !read.is_plain(); });
          add_loop_nest(statement, affine && statement.is_reduction()
                                       ? "a sum through index expressions not run as BRGEMM over filter taps: " + why
                                       : loop_nest_reason(*idiom));
          break;
        }
      }
    }
    for (StageBuilder& builder : builders_) plan_.stages.push_back(std::move(builder.stage));
    for (std::size_t i = 0; i < plan_.stages.size(); ++i)
      plan_.stages[i].name = "stage" + std::to_string(i);
    fold_batch_into_m(plan_);
    mark_parallel_stages(plan_, options_.min_parallel_flops);
    finish_filter_panels(plan_);
    assign_storage();
    compose_in_place_updates(plan_);
    fuse_epilogues(plan_);
    mark_constant_inputs(program_, options_.constant_inputs, plan_);
    if (options_.row_chains) form_row_chains(plan_, program_, options_);
    return plan_;
  }

 private:
  const CpuTensor& tensor(const std::string& name) const { return plan_.tensor(name); }

  // The extents of a pointwise statement's written indices, outermost first.
  std::vector<std::int64_t> written_space(const Statement& statement) {
    std::vector<std::int64_t> space;
    for (const std::string& index : statement.write.indices)
      for (const IterationIndex& domain_index : statement.indices)
        if (domain_index.name == index) space.push_back(bound(program_, domain_index.extent));
    return space;
  }

  void add_pointwise(const Statement& statement, CpuPointwise pointwise) {
    // After a convolution whose blocks run its indices in another order than it writes them (a
    // grouped one: g before the output column), a statement writing the same indices over the
    // same extents joins in the blocks' roles.
    StageBuilder* last = builders_.empty() ? nullptr : &builders_.back();
    if (last != nullptr && last->closed) {
      const std::vector<std::string> names = last->names();
      const std::vector<std::int64_t> space = written_space(statement);
      bool same = std::is_permutation(names.begin(), names.end(), statement.write.indices.begin(),
                                      statement.write.indices.end());
      for (std::size_t i = 0; same && i < names.size(); ++i)
        same = last->space[i] == space[static_cast<std::size_t>(
                                     std::find(statement.write.indices.begin(), statement.write.indices.end(), names[i]) -
                                     statement.write.indices.begin())];
      if (same) {
        add_pointwise_with_space(pointwise_of(program_, statement, &names), last->space, names, /*in_closed=*/true);
        return;
      }
    }
    add_pointwise_with_space(std::move(pointwise), written_space(statement), statement.write.indices);
  }

  // Why an `other` statement is a loop nest: the idiom's own words, short.
  static std::string loop_nest_reason(const StatementIdiom& idiom) {
    return idiom.reason.empty() ? "a reduction that is not a matmul" : "not a matmul: " + idiom.reason;
  }

  // `statement` as a stage of its own: a plain loop nest over whole tensors.
  void add_loop_nest(const Statement& statement, const std::string& why) {
    CpuLoopNest nest;
    nest.statement = statement.id;
    nest.source = print_statement_source(statement);
    nest.why = why;
    nest.write = statement.write.tensor;
    for (const Access& read : statement.reads) nest.reads.push_back(read.tensor);
    nest.flops = loop_nest_flops(program_, statement);
    nest.outer = loop_nest_outer_index(statement);
    nest.serial = loop_nest_serial_reason(statement);
    StageBuilder builder;
    builder.written.insert(nest.write);
    builder.read.insert(nest.reads.begin(), nest.reads.end());
    builder.stage.loop_nest = std::move(nest);
    builders_.push_back(std::move(builder));
  }

  void add_pointwise_with_space(CpuPointwise pointwise, const std::vector<std::int64_t>& space,
                                const std::vector<std::string>& names, bool in_closed = false) {
    StageBuilder* last = builders_.empty() ? nullptr : &builders_.back();
    const std::string& target = pointwise.write.tensor;
    bool join = last != nullptr && !last->stage.loop_nest && !last->stage.pad && !last->stage.permute &&
                (!last->closed || in_closed) && last->space == space &&
                ((!last->written.count(target) && !last->read.count(target)) ||
                 last->touches_only_at(target, pointwise.write));
    for (const CpuAccess& read : pointwise.reads)
      if (join && last->written.count(read.tensor) && !same_element(read, pointwise.write))
        join = false;
    if (!join) last = &new_stage(space, names);
    last->written.insert(pointwise.write.tensor);
    for (const CpuAccess& read : pointwise.reads) last->read.insert(read.tensor);
    last->stage.pointwise.push_back(std::move(pointwise));
  }

  StageBuilder& new_stage(const std::vector<std::int64_t>& space,
                          const std::vector<std::string>& names) {
    StageBuilder builder;
    const std::size_t rank = space.size();
    for (std::size_t i = 0; i < rank; ++i) {
      if (i + 1 == rank) {
        builder.stage.n_name = names[i];
        builder.stage.n_extent = space[i];
      } else if (i + 2 == rank) {
        builder.stage.m_name = names[i];
        builder.stage.m_extent = space[i];
      } else {
        builder.stage.batch_names.push_back(names[i]);
        builder.stage.batch_extents.push_back(space[i]);
      }
    }
    builder.stage.blocking = blocking_;
    builder.space = space;
    builders_.push_back(std::move(builder));
    return builders_.back();
  }

  // A name for a synthetic tensor that no program tensor has.
  std::string fresh_name(std::string name) const {
    const auto taken = [&](const std::string& candidate) {
      return std::any_of(plan_.tensors.begin(), plan_.tensors.end(),
                         [&](const CpuTensor& t) { return t.name == candidate; });
    };
    while (taken(name)) name += "_";
    return name;
  }

  // The tensor the BRGEMM reads for `operand`: the operand's own, or a prologue's result
  // (written by a pointwise stage added here) when the factor is a function of the read
  // or its type is not `dtype`.
  std::string operand_tensor(const Statement& statement, const MatmulOperand& operand,
                             ElementType dtype) {
    const Access& read = statement.reads[operand.read];
    if (!operand.has_prologue && tensor(read.tensor).type == dtype) return read.tensor;
    CpuTensor result;
    result.name = fresh_name(statement.id + "_" + read.tensor);
    result.type = dtype;
    result.shape = tensor(read.tensor).shape;
    result.role = TensorRole::temporary;
    result.synthetic = true;
    plan_.tensors.push_back(result);

    CpuPointwise prologue;
    prologue.statement = statement.id + "." + read.tensor;
    const Roles roles = pointwise_roles(read.indices);
    prologue.write = access_for(result.name, read.indices, roles);
    // the operand's read first, then the reads broadcast against it (g(k) beside A(m, k))
    std::map<int, int> renumbered{{operand.read, 0}};
    prologue.reads.push_back(access_for(read.tensor, read.indices, roles));
    for (int other : reads_in(operand.factor)) {
      if (renumbered.count(other)) continue;
      renumbered[other] = static_cast<int>(prologue.reads.size());
      prologue.reads.push_back(access_for(statement.reads[other].tensor, statement.reads[other].indices, roles));
      if (!read_in_the_block(prologue.reads.back()))
        refuse_on_cpu(program_, statement,
                    "its read of " + quote_name(statement.reads[other].tensor) + " in the prologue of " +
                        quote_name(read.tensor) + " is not an element, a row, a column or a scalar of its block");
    }
    prologue.expr = renumber_reads(operand.factor, renumbered);
    std::string indices;
    for (const std::string& index : read.indices) indices += (indices.empty() ? "" : ", ") + index;
    prologue.source = result.name + "(" + indices + ") = " + print_expr(operand.factor, statement);
    std::vector<std::int64_t> space = result.shape;
    add_pointwise_with_space(std::move(prologue), space, read.indices);
    return result.name;
  }

  void add_matmul(const Statement& statement, const MatmulIdiom& idiom) {
    const ElementType a_type = tensor(statement.reads[idiom.a.read].tensor).type;
    const ElementType b_type = tensor(statement.reads[idiom.b.read].tensor).type;
    // A factor prologue is computed in f32 and kept in f32, as the language evaluates a
    // right-hand side: its result is not rounded to the operand's type.
    const ElementType dtype = idiom.a.has_prologue || idiom.b.has_prologue
                                  ? ElementType::f32
                                  : common_type(a_type, b_type);
    const std::string a_tensor = operand_tensor(statement, idiom.a, dtype);
    const std::string b_tensor = operand_tensor(statement, idiom.b, dtype);

    Roles roles;
    for (std::size_t i = 0; i < idiom.batch.size(); ++i)
      roles[idiom.batch[i]] = {CpuDim::batch, static_cast<int>(i)};
    roles[idiom.m] = {CpuDim::m, -1};
    roles[idiom.n] = {CpuDim::n, -1};
    roles[idiom.k] = {CpuDim::k, -1};
    if (!idiom.reduce_batch.empty()) roles[idiom.reduce_batch] = {CpuDim::r, -1};

    CpuMatmul matmul;
    matmul.statement = statement.id;
    matmul.source = print_statement_source(statement);
    matmul.a = access_for(a_tensor, statement.reads[idiom.a.read].indices, roles);
    matmul.b = access_for(b_tensor, statement.reads[idiom.b.read].indices, roles);
    matmul.c = access_for(statement.write.tensor, statement.write.indices, roles);
    matmul.a_layout = idiom.a.layout;
    matmul.b_layout = idiom.b.layout;
    matmul.dtype = dtype;
    matmul.zero_init = idiom.zero_init;

    std::map<std::string, std::int64_t> extent;
    for (const IterationIndex& index : statement.indices)
      extent[index.name] = bound(program_, index.extent);
    matmul.k = extent.at(idiom.k);
    if (!idiom.reduce_batch.empty()) matmul.reduce_batch = extent.at(idiom.reduce_batch);
    if (matmul.reduce_batch > 1 || matmul.k <= blocking_.kc) {
      matmul.kc = matmul.k;
    } else {
      matmul.kc = blocking_.kc;
      matmul.k_slices = matmul.k / blocking_.kc;
      matmul.k_tail = matmul.k % blocking_.kc;
    }

    const auto [space, names] = block_space(idiom.batch, idiom.m, idiom.n, extent);

    StageBuilder* last = builders_.empty() ? nullptr : &builders_.back();
    const bool join = last != nullptr && !last->stage.loop_nest && !last->stage.pad && !last->stage.permute &&
                      !last->closed &&
                      last->stage.pointwise.empty() &&
                      last->space == space &&
                      !last->written.count(a_tensor) && !last->written.count(b_tensor) &&
                      !last->written.count(matmul.c.tensor) && !last->read.count(matmul.c.tensor);
    if (!join) last = &new_stage(space, names);
    last->written.insert(matmul.c.tensor);
    last->read.insert(a_tensor);
    last->read.insert(b_tensor);
    last->stage.matmuls.push_back(std::move(matmul));
  }

  // The extents and names of a block space: batch.., m, n.
  static std::pair<std::vector<std::int64_t>, std::vector<std::string>> block_space(
      std::vector<std::string> names, const std::string& m, const std::string& n,
      const std::map<std::string, std::int64_t>& extent) {
    names.push_back(m);
    names.push_back(n);
    std::vector<std::int64_t> space;
    for (const std::string& index : names) space.push_back(extent.at(index));
    return {space, names};
  }

  // A synthetic temporary of `type` and `shape`, named after `name`; returns its name.
  std::string add_synthetic(const std::string& name, ElementType type, std::vector<std::int64_t> shape) {
    CpuTensor result;
    result.name = fresh_name(name);
    result.type = type;
    result.shape = std::move(shape);
    result.role = TensorRole::temporary;
    result.synthetic = true;
    plan_.tensors.push_back(result);
    return result.name;
  }

  // `statement` as BRGEMMs over its filter taps (schedule/cpu_conv.h), after the stages that
  // pack its filter and pad its input when it needs them. False (with `why`) when the input's
  // rows run backwards.
  bool add_conv(const Statement& statement, const ConvOverTaps& conv, std::string& why) {
    const Access& input = statement.reads[static_cast<std::size_t>(conv.input_read)];
    const Access& filter = statement.reads[static_cast<std::size_t>(conv.filter_read)];
    std::map<std::string, std::int64_t> extent;
    for (const IterationIndex& index : statement.indices) extent[index.name] = bound(program_, index.extent);

    // Roles: batch.., m = the output column, n = the output channel, k = c, r = the taps.
    Roles roles;
    for (std::size_t i = 0; i < conv.batch.size(); ++i) roles[conv.batch[i]] = {CpuDim::batch, static_cast<int>(i)};
    roles[conv.column] = {CpuDim::m, -1};
    roles[conv.channel_out] = {CpuDim::n, -1};
    roles[conv.channel_in] = {CpuDim::k, -1};
    for (const std::string& tap : conv.taps) roles[tap] = {CpuDim::r, -1};

    // B: the filter as [its batch indices.., taps.., c, k], a packed copy unless stored so.
    std::vector<std::string> packed_indices;
    for (const std::string& index : conv.batch)
      if (std::find(filter.indices.begin(), filter.indices.end(), index) != filter.indices.end())
        packed_indices.push_back(index);
    packed_indices.insert(packed_indices.end(), conv.taps.begin(), conv.taps.end());
    packed_indices.push_back(conv.channel_in);
    packed_indices.push_back(conv.channel_out);
    std::string b_tensor = filter.tensor;
    // The blocks run output-channel block outermost (codegen/cpu_emit.cc), so the blocks of
    // one run share B's slice of nc channels: nc such that the slice fills at most half of L2
    // (a power of two, at least 32: one AVX-512 register block), unless the options set blocks.
    std::int64_t filter_rows = extent.at(conv.channel_in);  // of B per output channel: taps x channels
    for (const std::string& tap : conv.taps) filter_rows *= extent.at(tap);
    const bool blocks_set = options_.blocking.mc > 0 && options_.blocking.nc > 0 && options_.blocking.kc > 0;
    std::int64_t nc = options_.blocking.nc;
    if (!blocks_set) {
      nc = 32;
      while (nc * 2 <= blocking_.nc && nc * 2 * filter_rows * 4 <= options_.target.l2_bytes / 2) nc *= 2;
    }
    // Packed in panels (finish_filter_panels) unless stored [batch.., taps.., c, k] with every
    // output channel in one block: a block's B is then one contiguous panel, streamed in order
    // (rows K elements apart in the stored filter, K = 512 f32 = 2 KiB, would share a few cache
    // sets and evict each other from L2).
    const bool pack = packed_indices != filter.indices || extent.at(conv.channel_out) > nc;
    // Per block (CpuConvTaps::panel_per_block) unless the filter has batch indices (groups:
    // their blocks run inside the column blocks) or neither c nor k is contiguous in it.
    const std::vector<std::int64_t> filter_strides = row_major_strides(tensor(filter.tensor).shape);
    const auto filter_stride = [&](const std::string& index) {
      const auto found = std::find(filter.indices.begin(), filter.indices.end(), index);
      PF_INTERNAL_CHECK(found != filter.indices.end(), "cpu plan: the filter does not read " + index);
      return filter_strides[static_cast<std::size_t>(found - filter.indices.begin())];
    };
    const bool per_block = pack && packed_indices.size() == conv.taps.size() + 2 &&
                           (filter_stride(conv.channel_in) == 1 || filter_stride(conv.channel_out) == 1);
    // A: the input, or its zero-padded copy; the taps' and the block's strides in it.
    // (copies: add_synthetic below grows plan_.tensors, so no reference into it may be kept)
    const ElementType in_type = tensor(input.tensor).type;
    std::vector<std::string> names = conv.batch;
    names.push_back(conv.column);
    names.push_back(conv.channel_out);
    const bool closed = names != statement.write.indices;  // epilogues would see other roles
    const std::optional<std::size_t> pixels_dim =
        pixels_in_vectors_dim(conv, input, extent, in_type, tensor(statement.write.tensor).type, closed);
    const ConvInputLayout layout = conv_input_layout(conv, tensor(input.tensor).shape, in_type, pixels_dim);
    const std::vector<std::int64_t>& a_strides = layout.strides;
    const auto a_coefficient = [&](const std::string& index) {
      std::int64_t sum = 0;
      for (std::size_t d = 0; d < a_strides.size(); ++d) sum += a_strides[d] * input.subscripts[d].coefficient(index);
      return sum;
    };
    CpuConvTaps taps;
    taps.input = input.tensor;
    taps.filter = filter.tensor;
    taps.filter_packed = pack;
    taps.panel_per_block = per_block;
    taps.lda = a_coefficient(conv.column);
    taps.a_channel_stride = pixels_dim ? a_coefficient(conv.channel_in) : 0;
    if (taps.lda <= 0) {
      why = "the input's rows (consecutive output columns) do not run forward";
      return false;
    }
    for (std::size_t d = 0; d < a_strides.size(); ++d)
      taps.a_origin += a_strides[d] * (input.subscripts[d].constant + conv.pad_before[d]);
    for (const std::string& index : conv.batch) taps.a_batch.push_back(a_coefficient(index));

    if (pack && !per_block) {  // a reordering copy of the whole filter, once per call (any stored order)
      std::vector<std::int64_t> shape;
      CpuPermuteCopy copy{filter.tensor, "", {}, packed_indices, "", "the filter packed as the BRGEMM's B"};
      for (const std::string& index : packed_indices) {
        shape.push_back(extent.at(index));
        const auto found = std::find(filter.indices.begin(), filter.indices.end(), index);
        PF_INTERNAL_CHECK(found != filter.indices.end(), "cpu plan: the filter does not read " + index);
        copy.from_dim.push_back(static_cast<std::size_t>(found - filter.indices.begin()));
      }
      // [batch.., taps.., c, k] until finish_filter_panels cuts k into the stage's panels.
      b_tensor = copy.to = add_synthetic(filter.tensor + "_packed", in_type, shape);
      StageBuilder builder;
      builder.written.insert(copy.to);
      builder.read.insert(copy.from);
      builder.stage.permute = std::move(copy);
      builders_.push_back(std::move(builder));
    }
    const std::vector<std::int64_t> b_shape = tensor(b_tensor).shape;
    const std::vector<std::int64_t> b_strides = row_major_strides(b_shape);
    for (const std::string& tap : conv.taps) {
      const std::size_t position = static_cast<std::size_t>(
          std::find(packed_indices.begin(), packed_indices.end(), tap) - packed_indices.begin());
      // (b_stride: of the stored filter, or of the packed one until finish_filter_panels)
      const std::int64_t stored = filter_stride(tap);
      taps.taps.push_back({tap, extent.at(tap), a_coefficient(tap), per_block ? stored : b_strides[position], stored, {}});
    }
    // The outer tap (two taps: the BRGEMM's outer batch for f32, a loop of calls for f16 and bf16)
    // skips what reads only the zero border, where the thread's filter panel shows its values
    // there finite (schedule/cpu_conv_border.h).
    if (options_.skip_border_taps && conv.padded() && per_block &&
        (in_type == ElementType::f32 || in_type == ElementType::f16 || in_type == ElementType::bf16) &&
        taps.taps.size() == 2)
      taps.taps.front().border =
          conv_tap_border(input, tensor(input.tensor).shape, taps.taps.front().index, conv.batch, extent);

    std::string a_tensor = input.tensor;
    if (conv.padded() || pixels_dim) {
      a_tensor = add_synthetic(input.tensor + (pixels_dim ? "_pixels" : "_padded"), in_type, layout.copy_shape);
      StageBuilder builder;
      builder.written.insert(a_tensor);
      builder.read.insert(input.tensor);
      builder.stage.pad = CpuPadCopy{input.tensor, a_tensor, conv.pad_before, layout.pad_after, pixels_dim};
      builders_.push_back(std::move(builder));
    }

    CpuMatmul matmul;
    matmul.statement = statement.id;
    matmul.source = print_statement_source(statement);
    matmul.a.tensor = a_tensor;
    matmul.b = access_for(b_tensor, b_tensor == filter.tensor ? filter.indices : packed_indices, roles);
    matmul.c = access_for(statement.write.tensor, statement.write.indices, roles);
    matmul.dtype = in_type;
    matmul.zero_init = statement.kind == StatementKind::reduce_init;
    matmul.k = extent.at(conv.channel_in);
    matmul.kc = matmul.k;
    matmul.reduce_batch = taps.taps.empty() ? 1 : taps.taps.back().extent;
    matmul.conv = std::move(taps);

    std::vector<std::int64_t> space;
    for (const std::string& index : names) space.push_back(extent.at(index));
    StageBuilder& stage = new_stage(space, names);
    stage.closed = closed;
    if (!blocks_set) stage.stage.blocking.nc = nc;
    stage.written.insert(matmul.c.tensor);
    stage.read.insert({a_tensor, b_tensor});
    stage.stage.matmuls.push_back(std::move(matmul));
    return true;
  }

  // Temporaries used by one stage only, not as a matmul operand nor by a loop nest: in blocks.
  void assign_storage() {
    std::map<std::string, std::set<std::size_t>> stages_of;
    std::set<std::string> operands;  // and what the loop nests touch: kept whole
    for (std::size_t i = 0; i < plan_.stages.size(); ++i) {
      if (const std::optional<CpuPadCopy>& pad = plan_.stages[i].pad) operands.insert({pad->from, pad->to});
      if (const std::optional<CpuPermuteCopy>& copy = plan_.stages[i].permute) operands.insert({copy->from, copy->to});
      if (const std::optional<CpuLoopNest>& nest = plan_.stages[i].loop_nest) {
        operands.insert(nest->write);
        operands.insert(nest->reads.begin(), nest->reads.end());
      }
      for (const CpuMatmul& matmul : plan_.stages[i].matmuls) {
        for (const CpuAccess* access : {&matmul.a, &matmul.b, &matmul.c}) stages_of[access->tensor].insert(i);
        operands.insert(matmul.a.tensor);
        operands.insert(matmul.b.tensor);
      }
      for (const CpuPointwise& pointwise : plan_.stages[i].pointwise) {
        stages_of[pointwise.write.tensor].insert(i);
        for (const CpuAccess& read : pointwise.reads) stages_of[read.tensor].insert(i);
      }
    }
    for (CpuTensor& tensor : plan_.tensors) {
      if (tensor.role != TensorRole::temporary) continue;
      tensor.storage = stages_of[tensor.name].size() <= 1 && !operands.count(tensor.name)
                           ? CpuStorage::block_local
                           : CpuStorage::full_temporary;
    }
  }

  const Program& program_;
  const CpuScheduleOptions& options_;
  CpuBlocking blocking_;
  CpuPlan plan_;
  std::vector<StageBuilder> builders_;
};

}  // namespace

const CpuTensor& CpuPlan::tensor(const std::string& name) const {
  for (const CpuTensor& t : tensors)
    if (t.name == name) return t;
  PF_INTERNAL_CHECK(false, "cpu plan: unknown tensor " + name);
  return tensors.front();
}

CpuPlan plan_cpu(const Program& program, const CpuScheduleOptions& options) {
  return Planner(program, options).run();
}

}  // namespace polyfuse
