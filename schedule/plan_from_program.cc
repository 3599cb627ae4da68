#include "schedule/plan_from_program.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "frontend/diagnostics.h"
#include "schedule/shared_operands.h"

namespace polyfuse {

Size bound_size(const Program& program, const Size& size) {
  if (!size.is_symbolic()) return size;
  auto bound = program.size_bindings.find(size.symbol);
  return bound != program.size_bindings.end() ? Size{"", bound->second} : size;
}

[[noreturn]] static void unsupported(const Program& program, const Statement& statement, const std::string& why) {
  throw UserError({Diagnostic{program.file, statement.location.line, statement.location.col,
                              fmt::format("statement {} of def '{}': {}", statement.id, program.name, why)}});
}

// The extent of index `name` in `statement`.
static Size index_extent(const Program& program, const Statement& statement, const std::string& name) {
  for (const IterationIndex& index : statement.indices)
    if (index.name == name) return bound_size(program, index.extent);
  PF_INTERNAL_CHECK(false, "statement " + statement.id + " has no index " + name);
}

static StatementDims dims_of(const Program& program, const Statement& statement, const std::vector<std::string>& batch,
                             const std::string& m, const std::string& n, const std::string* k) {
  StatementDims dims;
  dims.statement = statement.id;
  dims.batch = batch;
  dims.m = m;
  dims.n = n;
  for (const std::string& b : batch) dims.batch_extents.push_back(index_extent(program, statement, b));
  dims.m_extent = index_extent(program, statement, m);
  dims.n_extent = index_extent(program, statement, n);
  if (k) {
    dims.k = *k;
    dims.k_extent = index_extent(program, statement, *k);
  }
  // The plan names dimensions in domain order: batch, m, n, k.
  std::vector<std::string> expected = batch;
  expected.push_back(m);
  expected.push_back(n);
  if (k) expected.push_back(*k);
  if (statement.index_names() != expected)
    unsupported(program, statement, "the GPU path needs the written tensor indexed by batch indices, then rows, then columns");
  return dims;
}

// The index of `reads[read]`'s tensor and indices among `operands`, appended if new.
static int operand_index(std::vector<PrologueOperand>& operands, std::vector<std::vector<std::string>>& indices,
                         const Access& read, const std::vector<std::string>& element) {
  for (std::size_t i = 0; i < operands.size(); ++i)
    if (operands[i].tensor == read.tensor && indices[i] == read.indices) return static_cast<int>(i);
  PrologueOperand operand{read.tensor, read.indices, {}};
  for (const std::string& index : read.indices)
    operand.source_dims.push_back(static_cast<int>(std::find(element.begin(), element.end(), index) - element.begin()));
  operands.push_back(operand);
  indices.push_back(read.indices);
  return static_cast<int>(operands.size() - 1);
}

// The prologue `expr` of `statement` (the matmul, or a prologue statement) whose operand
// element is `statement.reads[element]`: every other read becomes an operand broadcast
// against it (an input of the element's type indexed by a subset of its indices, each
// tensor and indices once), and the read nodes are renumbered (0 the element, i + 1 operands[i]).
static OperandPrologue make_prologue(const Program& program, const Statement& statement, int element, const Expr& expr) {
  const Access& source = statement.reads[static_cast<std::size_t>(element)];
  OperandPrologue prologue{source.tensor, expr, {}};
  std::vector<std::vector<std::string>> indices;
  std::function<void(Expr&)> renumber = [&](Expr& node) {
    if (node.kind == ExprKind::read) {
      const Access& read = statement.reads[static_cast<std::size_t>(node.read)];
      if (read.tensor == source.tensor && read.indices == source.indices) {
        node.read = 0;
        return;
      }
      const Tensor* tensor = program.find_tensor(read.tensor);
      const ElementType type = program.find_tensor(source.tensor)->type;
      if (tensor->role != TensorRole::input || tensor->type != type)
        unsupported(program, statement,
                    fmt::format("a prologue operand must be an input of {}'s type, {} (its tiles are copied beside {}'s, "
                                "and the prologue's result is rounded to that type); {} is {}",
                                source.tensor, to_string(type), source.tensor, read.tensor,
                                tensor->role == TensorRole::input ? fmt::format("{} {} input", tensor->type == ElementType::bf16 ? "a" : "an", to_string(tensor->type))
                                                                  : std::string("a computed tensor")));
      node.read = 1 + operand_index(prologue.operands, indices, read, source.indices);
      return;
    }
    for (Expr& operand : node.operands) renumber(operand);
  };
  renumber(prologue.expr);
  return prologue;
}

// Prologue statements `T(i..) = f(X(i..), g(..), ..)`: a pointwise function of an input
// tensor read at the written indices (and of inputs broadcast against it), whose result
// only feeds matmul operands. They are not scheduled: their function runs in the
// operand's copy (OperandPrologue).
static std::map<std::string, OperandPrologue> prologue_statements(const Program& program, const Idioms& idioms) {
  std::map<std::string, OperandPrologue> prologues;  // written temporary -> prologue
  for (const Statement& statement : program.statements) {
    const StatementIdiom* idiom = idioms.find(statement.id);
    if (idiom->kind != IdiomKind::pointwise || idiom->prologue_of.empty()) continue;
    if (!idiom->epilogue_of.empty())
      unsupported(program, statement, "a statement between two matmuls is not supported yet");
    int element = -1;
    for (std::size_t i = 0; i < statement.reads.size() && element < 0; ++i) {
      const Tensor* source = program.find_tensor(statement.reads[i].tensor);
      if (source->role == TensorRole::input && statement.reads[i].indices == statement.write.indices)
        element = static_cast<int>(i);
    }
    bool broadcast = element >= 0;
    for (const Access& read : statement.reads)
      for (const std::string& index : read.indices)
        broadcast = broadcast && std::find(statement.write.indices.begin(), statement.write.indices.end(), index) !=
                                     statement.write.indices.end();
    if (!broadcast)
      unsupported(program, statement,
                  "a fused prologue must be a function of an input tensor read at the written indices and of inputs "
                  "read at a subset of them (e.g. Ar(m, k) = relu(A(m, k) * g(k))); other prologues are not supported "
                  "yet");
    // Its values exist only inside the operand copies: nothing else may need them.
    const std::string& result = statement.write.tensor;
    bool only_operands = program.find_tensor(result)->role == TensorRole::temporary;
    for (const Statement& reader : program.statements)
      for (const Access& read : reader.reads)
        if (read.tensor == result) {
          const StatementIdiom* use = idioms.find(reader.id);
          only_operands = only_operands && use != nullptr && use->kind == IdiomKind::matmul &&
                          (use->matmul.a.tensor == result || use->matmul.b.tensor == result);
        }
    if (!only_operands)
      unsupported(program, statement,
                  fmt::format("a fused prologue's result must be a temporary that only matmul operands read; {} is {}",
                              result, program.find_tensor(result)->role == TensorRole::temporary
                                          ? "also read by another statement" : "an output"));
    prologues[statement.write.tensor] = make_prologue(program, statement, element, statement.expr);
  }
  return prologues;
}

// The prologue of one matmul operand: inline (`relu(A(m, k) * g(k)) * ...`) or through a
// prologue statement's temporary.
static std::optional<OperandPrologue> operand_prologue(const Program& program, const Statement& statement,
                                                       const MatmulOperand& operand,
                                                       const std::map<std::string, OperandPrologue>& prologues) {
  auto through = prologues.find(operand.tensor);
  if (operand.has_prologue) {
    if (through != prologues.end())
      unsupported(program, statement,
                  fmt::format("{} is a prologue statement's result and has a prologue of its own here; write one "
                              "prologue (in the statement or inline)",
                              operand.tensor));
    return make_prologue(program, statement, operand.read, operand.factor);
  }
  if (through != prologues.end()) return through->second;
  return std::nullopt;
}

// Matmul and epilogue results live in register tiles, one per tensor, in the layout of
// the matmul's result: a later statement may write such a tensor again only to update it
// in place (an epilogue that reads it), and an epilogue reads them at its own indices.
static void check_register_accesses(const Program& program, const Statement& statement, const StatementIdiom& idiom,
                                    const std::map<std::string, std::string>& in_registers) {
  auto earlier = in_registers.find(statement.write.tensor);
  bool reads_itself = false;
  for (const Access& read : statement.reads) reads_itself = reads_itself || read.tensor == statement.write.tensor;
  if (earlier != in_registers.end() && !(idiom.kind == IdiomKind::pointwise && reads_itself))
    unsupported(program, statement,
                fmt::format("{} is already written by statement {}; on the GPU path a later statement may only update "
                            "it in place (an epilogue that reads it)",
                            statement.write.tensor, earlier->second));
  // A matmul's operands are copied from memory into shared memory; a result of this kernel
  // lives in registers (a chain of matmuls is two kernels, or one back-to-back kernel).
  if (idiom.kind == IdiomKind::matmul)
    for (const Access& read : statement.reads)
      if (const auto producer = in_registers.find(read.tensor); producer != in_registers.end())
        unsupported(program, statement,
                    fmt::format("a matmul that reads {}, the result of statement {}, does not run in the kernel that "
                                "computes it: its operands are read from memory",
                                read.tensor, producer->second));
  if (idiom.kind != IdiomKind::pointwise) return;
  // The epilogue code writes the expression's value: it would drop an output's current
  // value (a wrong result), so neither `+=` nor a read of an output's initial value.
  if (statement.kind == StatementKind::reduce)
    unsupported(program, statement,
                fmt::format("'+=' without a reduction index adds to the current value of {}, which the GPU path does "
                            "not read yet",
                            statement.write.tensor));
  for (const Access& read : statement.reads)
    if (program.find_tensor(read.tensor)->role == TensorRole::output && !in_registers.count(read.tensor))
      unsupported(program, statement,
                  fmt::format("an epilogue that reads the current value of output {} (before the kernel writes it) is "
                              "not supported on the GPU path yet",
                              read.tensor));
  for (const Access& read : statement.reads)
    if (in_registers.count(read.tensor) && read.indices != statement.index_names())
      unsupported(program, statement,
                  fmt::format("an epilogue must read the result {} at its own indices ({}); a transposed read is not "
                              "supported yet",
                              read.tensor, fmt::join(statement.index_names(), ", ")));
}

// "M x N" (batch extents first): the output tile extents of a statement.
static std::string output_extents(const StatementDims& dims) {
  std::vector<std::string> extents;
  for (const Size& e : dims.batch_extents) extents.push_back(e.to_string());
  extents.push_back(dims.m_extent.to_string());
  extents.push_back(dims.n_extent.to_string());
  return fmt::format("{}", fmt::join(extents, " x "));
}

// One kernel runs every statement over one grid of output tiles, spanning the largest
// output along each axis (codegen/kernel_grid.h). That needs the extents' values: with
// unbound sizes, every statement's output must have the first matmul's extents.
static void check_one_grid(const Program& program, const KernelPlan& plan) {
  const StatementDims& first = plan.matmuls.front().dims;
  auto comparable = [](const Size& a, const Size& b) {
    return a == b || (!a.is_symbolic() && !b.is_symbolic());
  };
  for (const StatementDims& dims : plan.all_statements()) {
    if (dims.batch_extents.size() != first.batch_extents.size())
      unsupported(program, *program.find_statement(dims.statement),
                  fmt::format("its output is {} but statement {}'s is {}: one kernel runs every statement over one grid "
                              "of output tiles, with the same batch indices",
                              output_extents(dims), first.statement, output_extents(first)));
    bool ok = comparable(dims.m_extent, first.m_extent) && comparable(dims.n_extent, first.n_extent);
    for (size_t i = 0; i < dims.batch_extents.size(); ++i) ok = ok && comparable(dims.batch_extents[i], first.batch_extents[i]);
    if (!ok)
      unsupported(program, *program.find_statement(dims.statement),
                  fmt::format("its output is {} but statement {}'s is {}: one kernel runs every statement over one grid "
                              "of output tiles, which needs the sizes' values; bind the sizes, or write the statements in "
                              "separate defs",
                              output_extents(dims), first.statement, output_extents(first)));
  }
}

bool touches_integers(const Program& program, const Statement& statement) {
  const auto integer = [&](const Access& access) { return is_integer(program.find_tensor(access.tensor)->type); };
  return integer(statement.write) || std::any_of(statement.reads.begin(), statement.reads.end(), integer);
}

KernelPlan plan_gpu_kernel(const Program& program, const Idioms& idioms, F32Matmul f32) {
  KernelPlan plan;
  plan.name = program.name;
  for (const Statement& statement : program.statements)
    if (touches_integers(program, statement))
      unsupported(program, statement, "integer tensors and gathers run in memory-bound kernels, never on tensor cores");
  std::map<std::string, OperandPrologue> prologues = prologue_statements(program, idioms);
  plan.domain = isl::union_set::empty(program.ctx());
  std::map<std::string, std::string> in_registers;  // matmul and epilogue results -> the statement that wrote them
  std::map<std::string, std::string> kernel_writes;  // every tensor the kernel writes -> its (last) writer
  for (const Statement& statement : program.statements) {
    const StatementIdiom* idiom = idioms.find(statement.id);
    PF_INTERNAL_CHECK(idiom != nullptr, "no idiom for statement " + statement.id);
    // Index values run in epilogues only (each fragment element knows its row and column); a
    // prologue's copies and the matmul's k-loop see tile elements, not indices.
    if (contains_kind(statement.expr, ExprKind::index) && !(idiom->kind == IdiomKind::pointwise && idiom->prologue_of.empty()))
      unsupported(program, statement,
                  fmt::format("an index variable used as a value is not fused into a matmul kernel's {} yet (its "
                              "copies see tile elements, not indices; epilogues take them)",
                              idiom->kind == IdiomKind::pointwise ? "prologue" : "k-loop"));
    if (idiom->kind == IdiomKind::pointwise && !idiom->prologue_of.empty()) continue;  // fused into the copies
    kernel_writes.emplace(statement.write.tensor, statement.id);
    check_register_accesses(program, statement, *idiom, in_registers);
    in_registers.emplace(statement.write.tensor, statement.id);
    plan.domain = plan.domain.unite(isl::union_set(statement.domain));
    const Tensor* written = program.find_tensor(statement.write.tensor);
    switch (idiom->kind) {
      case IdiomKind::matmul: {
        const MatmulIdiom& mm = idiom->matmul;
        std::optional<OperandPrologue> a_prologue = operand_prologue(program, statement, mm.a, prologues);
        std::optional<OperandPrologue> b_prologue = operand_prologue(program, statement, mm.b, prologues);
        const Tensor* a = program.find_tensor(a_prologue ? a_prologue->source : mm.a.tensor);
        const Tensor* b = program.find_tensor(b_prologue ? b_prologue->source : mm.b.tensor);
        const auto float_type = [](ElementType type) {
          return type == ElementType::f16 || type == ElementType::bf16 || type == ElementType::f32;
        };
        const bool mixed = a->type != b->type && float_type(a->type) && float_type(b->type);
        if (a->type != b->type && !mixed && !(is_fp8(a->type) && is_fp8(b->type)))
          unsupported(program, statement,
                      fmt::format("tensor cores need operands of one type (f16, bf16, or f32 as TF32), two of f16, bf16 "
                                  "and f32 (as TF32), or two FP8 ones (e4m3, e5m2; mixed FP8 x 16-bit is not built); {} is "
                                  "{} and {} is {}",
                                  a->name, to_string(a->type), b->name, to_string(b->type)));
        // TF32 tensor cores: f32 operands, or two types a TF32 value holds exactly (mixed).
        const ElementType operand_type = mixed ? ElementType::f32 : a->type;
        if (operand_type == ElementType::f32 && f32 == F32Matmul::f32)
          unsupported(program, statement,
                      mixed ? fmt::format("`f32_matmul` f32: {} is {} and {} is {}, a matmul of mixed types runs on TF32 "
                                          "tensor cores, and f32_matmul f32 runs it exactly, on CUDA cores",
                                          a->name, to_string(a->type), b->name, to_string(b->type))
                            : fmt::format("`f32_matmul` f32: {} and {} are f32 and the matmul runs exactly, on CUDA cores",
                                          a->name, b->name));
        if (operand_type == ElementType::f32 && (a_prologue || b_prologue))
          unsupported(program, statement,
                      "a prologue on an operand of a TF32 matmul (f32 operands, or two types) is not fused yet (its "
                      "tiles are copied as they are)");
        MatmulStage stage;
        stage.dims = dims_of(program, statement, mm.batch, mm.m, mm.n, &mm.k);
        stage.a = mm.a.tensor;
        stage.b = mm.b.tensor;
        stage.c = statement.write.tensor;
        stage.a_access = statement.reads[mm.a.read].relation;
        stage.b_access = statement.reads[mm.b.read].relation;
        stage.c_access = statement.write.relation;
        stage.a_layout = mm.a.layout == MatrixLayout::row_major ? OperandLayout::row_major : OperandLayout::col_major;
        stage.b_layout = mm.b.layout == MatrixLayout::row_major ? OperandLayout::row_major : OperandLayout::col_major;
        stage.a_prologue = a_prologue;
        stage.b_prologue = b_prologue;
        stage.zero_init = mm.zero_init;
        stage.operand_type = operand_type;
        stage.a_type = a->type;
        stage.b_type = b->type;
        if (!plan.matmuls.empty() && (plan.matmuls.front().operand_type == ElementType::f32) != (operand_type == ElementType::f32))
          unsupported(program, statement,
                      "the matmuls of one kernel take one kind of operands: f32 (TF32) and 16-bit ones are not fused");
        stage.live_out = written->role == TensorRole::output;
        plan.matmuls.push_back(stage);
        break;
      }
      case IdiomKind::batch_reduce_matmul:
        unsupported(program, statement, "batch-reduce matmuls are compiled by the CPU path only (`target=cpu`)");
      case IdiomKind::pointwise: {
        if (idiom->epilogue_of.empty())
          unsupported(program, statement, "a pointwise statement that consumes no matmul result is not supported on the GPU path yet");
        const Statement& producer = *program.find_statement(idiom->epilogue_of.front());
        const MatmulIdiom& mm = idioms.find(producer.id)->matmul;
        std::vector<std::string> names = statement.index_names();
        if (names.size() != mm.batch.size() + 2)
          unsupported(program, statement, "an epilogue must have the shape of the matmul result it consumes");
        std::vector<std::string> batch(names.begin(), names.end() - 2);
        PointwiseStage stage;
        stage.dims = dims_of(program, statement, batch, names[names.size() - 2], names.back(), nullptr);
        // Its index values are its own batch, row and column indices (a view's grouped indices,
        // schedule/contraction_to_gemm.h, would name others).
        for (const std::string& name : index_values(statement.expr))
          if (std::find(names.begin(), names.end(), name) == names.end())
            unsupported(program, statement, fmt::format("index {} used as a value is not an index of the epilogue", name));
        // The epilogue loads an input's fragment values as a matrix of the result's rows and
        // columns (those indices last, in that order) or as a vector along one of them
        // (codegen/cuda_epilogue.cc); another read runs in a kernel of its own.
        for (const Access& read : statement.reads) {
          if (in_registers.count(read.tensor) || read.indices.empty()) continue;
          const std::vector<std::string>& ix = read.indices;
          const bool reads_m = std::find(ix.begin(), ix.end(), stage.dims.m) != ix.end();
          const bool reads_n = std::find(ix.begin(), ix.end(), stage.dims.n) != ix.end();
          const bool matrix = ix.size() >= 2 && ix.back() == stage.dims.n && ix[ix.size() - 2] == stage.dims.m;
          if (!matrix && !(ix.back() == stage.dims.n && !reads_m) && !(ix.back() == stage.dims.m && !reads_n))
            throw UserError({Diagnostic{program.file, read.location.line, read.location.col,
                                        fmt::format("epilogue operand {}: an epilogue reads a tensor indexed by the "
                                                    "result's row and column indices in that order (last), or a "
                                                    "vector broadcast along one of them",
                                                    read.tensor)}});
        }
        stage.output = statement.write.tensor;
        stage.write_access = statement.write.relation;
        stage.live_out = written->role == TensorRole::output;
        plan.epilogue.push_back(stage);
        break;
      }
      case IdiomKind::other:
        unsupported(program, statement, unsupported_reduction(*idiom, "the GPU path"));
    }
  }
  if (plan.matmuls.empty())
    throw UserError(fmt::format("def '{}' has no matmul: the GPU path compiles matmuls and their epilogues", program.name));
  // A block reads a matmul's operands along the whole K range, tiles other blocks own: an operand
  // the kernel also writes (`C9 +=! C8 * W` before `C8 += ...`) would be read and written by
  // different blocks of one launch, unordered (random program 14930 raced so).
  for (const MatmulStage& mm : plan.matmuls) {
    std::vector<std::string> operands = {mm.a_prologue ? mm.a_prologue->source : mm.a,
                                         mm.b_prologue ? mm.b_prologue->source : mm.b};
    for (const std::optional<OperandPrologue>& prologue : {mm.a_prologue, mm.b_prologue})
      for (const PrologueOperand& operand : prologue ? prologue->operands : std::vector<PrologueOperand>{})
        operands.push_back(operand.tensor);
    for (const std::string& operand : operands)
      if (const auto writer = kernel_writes.find(operand); writer != kernel_writes.end())
        unsupported(program, *program.find_statement(mm.dims.statement),
                    fmt::format("a matmul reading {}, which {} of the same kernel writes: each block reads the operand "
                                "across tiles other blocks write, in no order",
                                operand, writer->second));
  }
  check_one_grid(program, plan);
  share_operand_tiles(plan);
  return plan;
}

}  // namespace polyfuse
