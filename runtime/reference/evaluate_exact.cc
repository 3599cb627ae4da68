#include "runtime/reference/evaluate_exact.h"

#include "frontend/diagnostics.h"
#include "runtime/reference/condition_bound.h"
#include "runtime/reference/error_bound.h"
#include "runtime/reference/reduction_bound.h"
#include "runtime/reference/statement_runner.h"

namespace polyfuse::reference {
namespace {

// The type a matmul on tensor cores takes its operands in: the common type of the
// tensors the statement reads (f32 when it reads none or mixes types; FP8 when every read is
// FP8, e4m3 and e5m2 mixed too: the FP8 tensor cores take both).
ElementType operand_type(const Program& program, const Statement& statement) {
  if (statement.reads.empty()) return ElementType::f32;
  ElementType type = program.find_tensor(statement.reads[0].tensor)->type;
  bool all_fp8 = true;
  for (const Access& read : statement.reads) {
    const ElementType read_type = program.find_tensor(read.tensor)->type;
    all_fp8 = all_fp8 && is_fp8(read_type);
    type = common_type(type, read_type);
  }
  return all_fp8 ? program.find_tensor(statement.reads[0].tensor)->type : type;
}

// The arithmetic of evaluate_exact.h (error_bound.h's rules), for StatementRunner.
class ExactSemantics {
 public:
  using Value = Bounded;
  using Storage = ExactTensor;

  ExactSemantics(const Program& program, const Statement& statement, F32Matmul f32, Fp8Accumulation fp8) {
    const Tensor* written = program.find_tensor(statement.write.tensor);
    PF_INTERNAL_CHECK(written != nullptr, "reference: unknown tensor " + statement.write.tensor);
    written_type_ = written->type;
    factor_type_ = operand_type(program, statement);
    // A product's factors that a backend may round to the operand type (not plain reads):
    // a matmul's, in a sum.
    const Expr& expr = statement.expr;
    const bool sum_of_product = statement.is_reduction() && statement.reduction == ReductionOp::sum &&
                                expr.kind == ExprKind::binary && expr.op == BinaryOp::mul;
    if (sum_of_product) {
      round_factor_[0] = expr.operands[0].kind != ExprKind::read;
      round_factor_[1] = expr.operands[1].kind != ExprKind::read;
    }
    // f16/bf16 operands may meet tensor cores (truncating block additions).
    summation_factor_ = factor_type_ == ElementType::f32 ? kRoundToNearestSummationFactor
                                                          : kTensorCoreSummationFactor;
    // FP8 operands: f32 sums, or FP8 wgmma's narrower accumulator on a GPU (Fp8Accumulation).
    if (is_fp8(factor_type_)) summation_factor_ = fp8_matmul_summation_factor(fp8);
    // A sum of a product of f32 operands may run on tensor cores (a matmul, or a contraction
    // grouped as a GEMM): both factors as the mode gives them.
    if (factor_type_ == ElementType::f32 && f32 != F32Matmul::f32 && sum_of_product) {
      f32_matmul_ = f32;
      summation_factor_ = f32_matmul_summation_factor(f32);
    }
  }

  Bounded load(const Storage& tensor, std::size_t at) const { return tensor[at]; }
  void store(Storage& tensor, std::size_t at, Bounded value) const { tensor[at] = stored_as(written_type_, value); }
  Bounded constant(double value) const { return literal(value); }
  Bounded negate(Bounded x) const { return reference::negate(x); }
  Bounded binary(BinaryOp op, Bounded x, Bounded y) const { return reference::binary(op, x, y); }
  Bounded call(Function function, Bounded x, Bounded y) const { return reference::call(function, x, y); }
  Bounded index(std::int64_t value) const { return {static_cast<double>(value), 0}; }
  Bounded compare(Comparison comparison, Bounded x, Bounded y) const { return reference::compare(comparison, x, y); }
  Bounded logical(ExprKind kind, Bounded x, Bounded y) const { return reference::logical(kind, x, y); }
  Bounded select(Bounded condition, Bounded if_true, Bounded if_false) const {
    return reference::select(condition, if_true, if_false);
  }
  // The factors of the final product, as a backend may hold them (see the constructor).
  void final_product(Bounded& left, Bounded& right) const {
    if (round_factor_[0]) left = stored_as(factor_type_, left);
    if (round_factor_[1]) right = stored_as(factor_type_, right);
    if (f32_matmul_ == F32Matmul::f32) return;  // (the factor as it is: no call per product)
    left = f32_matmul_factor(f32_matmul_, left);
    right = f32_matmul_factor(f32_matmul_, right);
  }
  Bounded identity(ReductionOp op) const { return {identity_value(op), 0}; }
  std::int64_t position(Bounded value) const { return static_cast<std::int64_t>(value.value); }
  ReductionBound reduction(ReductionOp op, Bounded initial) const {
    return ReductionBound(op, initial, summation_factor_);
  }

 private:
  ElementType written_type_ = ElementType::f32;
  ElementType factor_type_ = ElementType::f32;
  double summation_factor_ = kRoundToNearestSummationFactor;
  bool round_factor_[2] = {false, false};
  F32Matmul f32_matmul_ = F32Matmul::f32;  // how this statement's f32 factors may be rounded
};

}  // namespace

ExactData evaluate_exact(const Program& program, const TensorData& inputs, F32Matmul f32, Fp8Accumulation fp8) {
  const std::vector<std::int64_t> counts = checked_element_counts(program, inputs, "reference::evaluate_exact");
  ExactData tensors;
  for (std::size_t i = 0; i < program.tensors.size(); ++i) {
    const Tensor& tensor = program.tensors[i];
    ExactTensor& exact = tensors[tensor.name];
    exact.assign(static_cast<std::size_t>(counts[i]), Bounded{});
    if (tensor.role == TensorRole::temporary) continue;
    const std::vector<float>& values = inputs.at(tensor.name);
    for (std::size_t j = 0; j < exact.size(); ++j) exact[j].value = values[j];
  }
  for (const Statement& statement : program.statements)
    StatementRunner<ExactSemantics>(program, statement, tensors, ExactSemantics(program, statement, f32, fp8)).run();
  return tensors;
}

}  // namespace polyfuse::reference
