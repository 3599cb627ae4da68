#include "schedule/plan_from_program.h"

#include <fmt/format.h>

#include "frontend/diagnostics.h"

namespace polyfuse {

std::string extent_text(const Program& program, const Size& size) {
  if (!size.is_symbolic()) return std::to_string(size.value);
  auto bound = program.size_bindings.find(size.symbol);
  return bound != program.size_bindings.end() ? std::to_string(bound->second) : size.symbol;
}

[[noreturn]] static void unsupported(const Program& program, const Statement& statement, const std::string& why) {
  throw UserError({Diagnostic{program.file, statement.location.line, statement.location.col,
                              fmt::format("statement {} of def '{}': {}", statement.id, program.name, why)}});
}

// The extent of index `name` in `statement`.
static std::string index_extent(const Program& program, const Statement& statement, const std::string& name) {
  for (const IterationIndex& index : statement.indices)
    if (index.name == name) return extent_text(program, index.extent);
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

KernelPlan plan_gpu_kernel(const Program& program, const Idioms& idioms) {
  KernelPlan plan;
  plan.name = program.name;
  plan.domain = program.domains();
  for (const Statement& statement : program.statements) {
    const StatementIdiom* idiom = idioms.find(statement.id);
    PF_INTERNAL_CHECK(idiom != nullptr, "no idiom for statement " + statement.id);
    const Tensor* written = program.find_tensor(statement.write.tensor);
    switch (idiom->kind) {
      case IdiomKind::matmul: {
        const MatmulIdiom& mm = idiom->matmul;
        if (mm.a.has_prologue || mm.b.has_prologue)
          unsupported(program, statement, "pointwise operations on matmul operands (prologue fusion) are not supported yet");
        const Tensor* a = program.find_tensor(mm.a.tensor);
        const Tensor* b = program.find_tensor(mm.b.tensor);
        if (a->type == ElementType::f32 || b->type == ElementType::f32 || a->type != b->type)
          unsupported(program, statement,
                      fmt::format("tensor cores need f16 or bf16 operands of one type; {} is {} and {} is {}", a->name,
                                  to_string(a->type), b->name, to_string(b->type)));
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
        stage.zero_init = mm.zero_init;
        stage.live_out = written->role == TensorRole::output;
        plan.matmuls.push_back(stage);
        break;
      }
      case IdiomKind::batch_reduce_matmul:
        unsupported(program, statement, "batch-reduce matmuls are compiled by the CPU path only (--target=cpu)");
      case IdiomKind::pointwise: {
        if (!idiom->prologue_of.empty())
          unsupported(program, statement, "pointwise operations on matmul operands (prologue fusion) are not supported yet");
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
        stage.output = statement.write.tensor;
        stage.write_access = statement.write.relation;
        stage.live_out = written->role == TensorRole::output;
        plan.epilogue.push_back(stage);
        break;
      }
      case IdiomKind::other:
        unsupported(program, statement, "this reduction cannot be mapped to tensor cores: " + idiom->reason);
    }
  }
  if (plan.matmuls.empty())
    throw UserError(fmt::format("def '{}' has no matmul: the GPU path compiles matmuls and their epilogues", program.name));
  return plan;
}

}  // namespace polyfuse
