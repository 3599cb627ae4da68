#include "runtime/reference/evaluate.h"

#include <algorithm>
#include <cmath>

#include "frontend/diagnostics.h"
#include "runtime/reference/element_rounding.h"
#include "runtime/reference/statement_runner.h"

namespace polyfuse::reference {
namespace {

float call(Function function, float x, float y) {
  switch (function) {
    case Function::relu: return x > 0.0f ? x : 0.0f;
    case Function::sigmoid: return 1.0f / (1.0f + std::exp(-x));
    case Function::tanh: return std::tanh(x);
    case Function::gelu_erf: return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
    case Function::gelu_tanh:
      return 0.5f * x * (1.0f + std::tanh(0.7978845608028654f * (x + 0.044715f * x * x * x)));
    case Function::exp: return std::exp(x);
    case Function::sqrt: return std::sqrt(x);
    case Function::rsqrt: return 1.0f / std::sqrt(x);
    case Function::log: return std::log(x);
    case Function::abs: return std::fabs(x);
    case Function::silu: return x / (1.0f + std::exp(-x));
    case Function::max: return std::max(x, y);
    case Function::min: return std::min(x, y);
    case Function::to_f16: return round_to(ElementType::f16, x);
    case Function::to_bf16: return round_to(ElementType::bf16, x);
    case Function::to_f32: return x;
  }
  return 0.0f;
}

float binary(BinaryOp op, float x, float y) {
  switch (op) {
    case BinaryOp::add: return x + y;
    case BinaryOp::sub: return x - y;
    case BinaryOp::mul: return x * y;
    case BinaryOp::div: return x / y;
  }
  return 0.0f;
}

// The f32 arithmetic of evaluate.h, for StatementRunner.
class F32Semantics {
 public:
  using Value = float;
  using Storage = std::vector<float>;

  F32Semantics(const Program& program, const Statement& statement) {
    const Tensor* written = program.find_tensor(statement.write.tensor);
    PF_INTERNAL_CHECK(written != nullptr, "reference: unknown tensor " + statement.write.tensor);
    written_type_ = written->type;
  }

  float load(const Storage& tensor, std::size_t at) const { return tensor[at]; }
  void store(Storage& tensor, std::size_t at, float value) const { tensor[at] = round_to(written_type_, value); }
  float constant(double value) const { return static_cast<float>(value); }
  float negate(float x) const { return -x; }
  float binary(BinaryOp op, float x, float y) const { return reference::binary(op, x, y); }
  float call(Function function, float x, float y) const { return reference::call(function, x, y); }
  // Conditions are 1 (true) or 0 (false).
  float index(std::int64_t value) const { return static_cast<float>(value); }
  float compare(Comparison comparison, float x, float y) const { return polyfuse::compare(comparison, x, y) ? 1.0f : 0.0f; }
  float logical(ExprKind kind, float x, float y) const {
    const bool result = kind == ExprKind::logical_and ? (x != 0 && y != 0)
                      : kind == ExprKind::logical_or  ? (x != 0 || y != 0)
                                                      : x == 0;
    return result ? 1.0f : 0.0f;
  }
  float select(float condition, float if_true, float if_false) const { return condition != 0 ? if_true : if_false; }
  void final_product(float&, float&) const {}

  // An f32 accumulator in program order.
  struct Accumulator {
    ReductionOp op;
    float value;
    void add(float term) {
      switch (op) {
        case ReductionOp::sum: value += term; break;
        case ReductionOp::product: value *= term; break;
        case ReductionOp::max: value = std::max(value, term); break;
        case ReductionOp::min: value = std::min(value, term); break;
      }
    }
    float finish() const { return value; }
  };
  float identity(ReductionOp op) const { return static_cast<float>(identity_value(op)); }
  std::int64_t position(float value) const { return static_cast<std::int64_t>(value); }
  Accumulator reduction(ReductionOp op, float initial) const { return {op, initial}; }

 private:
  ElementType written_type_ = ElementType::f32;
};

}  // namespace

void evaluate(const Program& program, TensorData& tensors) {
  const std::vector<std::int64_t> counts = checked_element_counts(program, tensors, "reference::evaluate");
  for (std::size_t i = 0; i < program.tensors.size(); ++i)
    if (program.tensors[i].role == TensorRole::temporary)
      tensors[program.tensors[i].name].assign(static_cast<std::size_t>(counts[i]), 0.0f);
  for (const Statement& statement : program.statements)
    StatementRunner<F32Semantics>(program, statement, tensors, F32Semantics(program, statement)).run();
}

}  // namespace polyfuse::reference
