#include "schedule/cpu_epilogue.h"

#include <algorithm>
#include <cmath>

#include "schedule/cpu_roles.h"

namespace polyfuse {
namespace {

bool has_dim(const CpuAccess& access, CpuDim dim) {
  return std::find(access.dims.begin(), access.dims.end(), dim) != access.dims.end();
}

// A read of the matmul's block C.
bool reads_block(const Expr& expr, const CpuPointwise& pointwise, const std::string& c) {
  return expr.kind == ExprKind::read && pointwise.reads.at(expr.read).tensor == c;
}

// A read of a row (n) or column (m) of the block from an f32 tensor contiguous along it: the
// bias of a BRGEMM epilogue. A column is refused where the rows fold batch indices (their
// stride is not the tensor's).
bool reads_bias(const Expr& expr, const CpuPointwise& pointwise, const CpuPlan& plan, const CpuMatmul& matmul) {
  if (expr.kind != ExprKind::read) return false;
  const CpuAccess& access = pointwise.reads.at(expr.read);
  const CpuTensor& tensor = plan.tensor(access.tensor);
  if (tensor.type != ElementType::f32 || tensor.storage == CpuStorage::block_local || access.dims.empty())
    return false;
  const bool row = has_dim(access, CpuDim::n), column = has_dim(access, CpuDim::m);
  if (row == column) return false;
  for (CpuDim dim : access.dims)
    if (dim != CpuDim::batch && dim != CpuDim::m && dim != CpuDim::n) return false;
  if (column && has_dim(matmul.c, CpuDim::folded)) return false;
  return access.dims.back() == (row ? CpuDim::n : CpuDim::m);  // contiguous along it
}

// A read of an f32 block at the element written (a residual), from a tensor other than C and
// the output (the output's block holds partial sums before the epilogue reads its addend).
bool reads_addend(const Expr& expr, const CpuPointwise& pointwise, const CpuPlan& plan, const CpuMatmul& matmul) {
  if (expr.kind != ExprKind::read) return false;
  const CpuAccess& access = pointwise.reads.at(expr.read);
  const CpuTensor& tensor = plan.tensor(access.tensor);
  return tensor.type == ElementType::f32 && tensor.storage != CpuStorage::block_local &&
         access.tensor != matmul.c.tensor && access.tensor != pointwise.write.tensor &&
         access.dims == pointwise.write.dims && access.batch_positions == pointwise.write.batch_positions &&
         has_dim(access, CpuDim::m) && has_dim(access, CpuDim::n);
}

// Whether `sum` adds to the block C what the epilogue adds, in its order, C first, then a bias,
// then an addend (each optional; either operand order of each +, which gives the same bits):
// C, C + v, C + R, (C + v) + R. Fills `epilogue`'s bias and addend.
bool matches_sum(const Expr& sum, const CpuPointwise& pointwise, const CpuPlan& plan, const CpuMatmul& matmul,
                 CpuEpilogue& epilogue) {
  if (reads_block(sum, pointwise, matmul.c.tensor)) return true;
  if (sum.kind != ExprKind::binary || sum.op != BinaryOp::add) return false;
  for (int side : {0, 1}) {
    const Expr& inner = sum.operands[side];
    const Expr& added = sum.operands[1 - side];
    CpuEpilogue trial = epilogue;
    if (!matches_sum(inner, pointwise, plan, matmul, trial) || trial.addend) continue;
    if (!trial.bias && reads_bias(added, pointwise, plan, matmul)) {
      trial.bias = pointwise.reads.at(added.read);
    } else if (reads_addend(added, pointwise, plan, matmul)) {
      trial.addend = pointwise.reads.at(added.read);
    } else {
      continue;
    }
    epilogue = std::move(trial);
    return true;
  }
  return false;
}

// max(x, 0) (TC's `fmax(x, 0)`): the CPU's max is `x > y ? x : y`, so with y = +0 it is relu's
// `x > 0 ? x : +0` bit for bit (NaN and -0 give +0). Not max(0, x), which keeps -0.
bool is_relu(const Expr& expr) {
  if (expr.kind != ExprKind::call || expr.function != Function::max) return false;
  const Expr& zero = expr.operands[1];
  return zero.kind == ExprKind::constant && zero.value == 0 && !std::signbit(zero.value);
}

// The epilogue `pointwise` is, when it is one: u(sum) or sum, sum as matches_sum takes it.
std::optional<CpuEpilogue> epilogue_of(const CpuPointwise& pointwise, const CpuPlan& plan, const CpuMatmul& matmul) {
  CpuEpilogue epilogue;
  epilogue.statement = pointwise.statement;
  epilogue.output = pointwise.write;
  const Expr* sum = &pointwise.expr;
  if (sum->kind == ExprKind::call && arity(sum->function) == 1) {
    epilogue.post = sum->function;
    sum = &sum->operands[0];
  } else if (is_relu(*sum)) {
    epilogue.post = Function::relu;
    sum = &sum->operands[0];
  }
  if (!matches_sum(*sum, pointwise, plan, matmul, epilogue)) return std::nullopt;
  return epilogue;
}

bool reads_tensor(const CpuPointwise& pointwise, const std::string& tensor) {
  return std::any_of(pointwise.reads.begin(), pointwise.reads.end(),
                     [&](const CpuAccess& read) { return read.tensor == tensor; });
}

}  // namespace

void fuse_epilogues(CpuPlan& plan) {
  for (CpuStage& stage : plan.stages) {
    if (stage.matmuls.size() != 1 || stage.pointwise.empty()) continue;
    CpuMatmul& matmul = stage.matmuls.front();
    const CpuTensor& c = plan.tensor(matmul.c.tensor);
    CpuPointwise& first = stage.pointwise.front();
    const CpuTensor& output = plan.tensor(first.write.tensor);
    if (output.type != ElementType::f32 || output.name == matmul.a.tensor || output.name == matmul.b.tensor) continue;
    // In place (`C = u(C + v)`, C f32): the epilogue stores C's new value, what later reads see.
    const bool in_place = output.name == c.name;
    // (Pixels in vectors, the block accumulates in a buffer: from zero only.)
    if (in_place ? !same_element(first.write, matmul.c) || (matmul.pixels_in_vectors() && !matmul.zero_init)
                 : c.storage != CpuStorage::block_local)
      continue;
    if (!in_place && std::any_of(stage.pointwise.begin() + 1, stage.pointwise.end(),
                                 [&](const CpuPointwise& later) { return reads_tensor(later, c.name); }))
      continue;
    std::optional<CpuEpilogue> epilogue = epilogue_of(first, plan, matmul);
    // (pixels in vectors: the block is column-major, R is not)
    if (!epilogue || (epilogue->addend && matmul.pixels_in_vectors())) continue;
    matmul.epilogue = std::move(epilogue);
    first.in_epilogue = true;
  }
}

}  // namespace polyfuse
