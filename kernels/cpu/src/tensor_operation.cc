// Execution of a tensor operation: shared loops flattened onto the OpenMP team, seq
// loops as a recursion in list order, and at the innermost level the first-touch /
// main / last-touch kernels on one primitive block (seed §5.2, §5.4).
// A zero first touch before a contraction is fused into the main kernel: the first
// reduction step runs a BRGEMM built with accumulate = false (C = sum) instead of
// zeroing C and then adding to it.
#include "polyfuse/cpu/tensor_operation.h"

#include <optional>

#include "tensor_operation_analysis.h"

namespace polyfuse::cpu {

namespace {

UnaryOp unary_op(PrimType t) {
  switch (t) {
    case PrimType::zero: return UnaryOp::zero;
    case PrimType::relu: return UnaryOp::relu;
    case PrimType::sigmoid: return UnaryOp::sigmoid;
    case PrimType::tanh: return UnaryOp::tanh;
    case PrimType::gelu: return UnaryOp::gelu;
    case PrimType::exp: return UnaryOp::exp;
    case PrimType::neg: return UnaryOp::neg;
    default: return UnaryOp::identity;
  }
}

BinaryOp binary_op(PrimType t) {
  switch (t) {
    case PrimType::sub: return BinaryOp::sub;
    case PrimType::mul: return BinaryOp::mul;
    case PrimType::div: return BinaryOp::div;
    case PrimType::max: return BinaryOp::max;
    case PrimType::min: return BinaryOp::min;
    default: return BinaryOp::add;
  }
}

Operand operand(const detail::BlockOperand& block, DType dtype) {
  return Operand{block.layout, dtype, block.broadcast};
}

}  // namespace

struct TensorOperation::State {
  TensorOperationConfig config;
  detail::Analysis plan;
  DType out_dtype = DType::f32;
  std::optional<Brgemm> main_accumulate;  // C += sum
  std::optional<Brgemm> main_overwrite;   // C = sum (fused zero first touch)
  std::optional<Unary> unary;             // unary main
  std::optional<Binary> binary;           // binary main
  std::optional<Unary> last_touch;        // in place on the output block

  void block(const char* in0, const char* in1, char* out, bool first, bool last) const {
    const detail::Analysis& p = plan;
    if (main_accumulate) {
      const Brgemm& kernel = (first && main_overwrite) ? *main_overwrite : *main_accumulate;
      kernel(in0, in1, reinterpret_cast<float*>(out), p.in0.ld, p.in1.ld, p.out.ld,
             p.br_stride_in0, p.br_stride_in1);
      if (last && last_touch) (*last_touch)(out, out, p.out.ld, p.out.ld);
    } else if (unary) {
      (*unary)(in0, out, p.in0.ld, p.out.ld);
    } else {
      (*binary)(in0, in1, out, p.in0.ld, p.in1.ld, p.out.ld);
    }
  }

  // Seq loop number `level` (index into plan.seq) and everything inside it.
  void loops(size_t level, const char* in0, const char* in1, char* out, bool first,
             bool last) const {
    if (level == plan.seq.size()) {
      block(in0, in1, out, first, last);
      return;
    }
    const int dim = plan.seq[level];
    const int64_t size = config.dim_sizes[dim];
    const int64_t in_bytes = dtype_size(config.dtype), out_bytes = dtype_size(out_dtype);
    const int64_t s0 = config.strides_in0[dim] * in_bytes, s1 = config.strides_in1[dim] * in_bytes;
    const int64_t so = config.strides_out[dim] * out_bytes;
    const bool is_k = config.dim_types[dim] == DimType::k;
    for (int64_t i = 0; i < size; ++i)
      loops(level + 1, in0 + i * s0, in1 + i * s1, out + i * so,
            first && (!is_k || i == 0), last && (!is_k || i == size - 1));
  }
};

TensorOperation::TensorOperation(const TensorOperationConfig& config)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.config = config;
  s.plan = detail::analyse(config);
  const detail::Analysis& p = s.plan;
  if (is_contraction(config.main)) {
    s.out_dtype = DType::f32;
    BrgemmConfig b;
    b.m = p.m, b.n = p.n, b.k = p.k, b.batch = p.batch;
    b.a_layout = p.in0.layout, b.b_layout = p.in1.layout, b.c_layout = p.out.layout;
    b.dtype = config.dtype;
    b.isa = config.isa;
    s.main_accumulate.emplace(b);
    if (config.first_touch == PrimType::zero) {
      b.accumulate = false;
      s.main_overwrite.emplace(b);
    }
    if (config.last_touch != PrimType::none) {
      UnaryConfig u;
      u.m = p.m, u.n = p.n, u.op = unary_op(config.last_touch);
      u.in = u.out = operand(p.out, DType::f32);
      s.last_touch.emplace(u);
    }
  } else if (is_unary(config.main)) {
    s.out_dtype = config.dtype;
    UnaryConfig u;
    u.m = p.m, u.n = p.n, u.op = unary_op(config.main);
    u.in = operand(p.in0, config.dtype);
    u.out = operand(p.out, config.dtype);
    s.unary.emplace(u);
  } else {
    s.out_dtype = config.dtype;
    BinaryConfig b;
    b.m = p.m, b.n = p.n, b.op = binary_op(config.main);
    b.in0 = operand(p.in0, config.dtype);
    b.in1 = operand(p.in1, config.dtype);
    b.out = operand(p.out, config.dtype);
    s.binary.emplace(b);
  }
}

TensorOperation::~TensorOperation() = default;
TensorOperation::TensorOperation(TensorOperation&&) noexcept = default;
TensorOperation& TensorOperation::operator=(TensorOperation&&) noexcept = default;

const TensorOperationConfig& TensorOperation::config() const { return state_->config; }

double TensorOperation::flops() const {
  double total = 1;
  for (int64_t size : state_->config.dim_sizes) total *= double(size);
  return is_contraction(state_->config.main) ? 2 * total : total;
}

void TensorOperation::execute(const void* in0, const void* in1, void* out) const {
  const State& s = *state_;
  const auto* p0 = static_cast<const char*>(in0);
  const auto* p1 = static_cast<const char*>(in1);
  auto* po = static_cast<char*>(out);
  const std::vector<int>& shared = s.plan.shared;
  if (shared.empty()) {
    s.loops(0, p0, p1, po, true, true);
    return;
  }
  int64_t total = 1;
  for (int dim : shared) total *= s.config.dim_sizes[dim];
  const int64_t in_bytes = dtype_size(s.config.dtype), out_bytes = dtype_size(s.out_dtype);
#pragma omp parallel for schedule(static)
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t rest = flat;
    const char* q0 = p0;
    const char* q1 = p1;
    char* qo = po;
    for (size_t j = shared.size(); j-- > 0;) {
      const int dim = shared[j];
      const int64_t i = rest % s.config.dim_sizes[dim];
      rest /= s.config.dim_sizes[dim];
      q0 += i * s.config.strides_in0[dim] * in_bytes;
      q1 += i * s.config.strides_in1[dim] * in_bytes;
      qo += i * s.config.strides_out[dim] * out_bytes;
    }
    s.loops(0, q0, q1, qo, true, true);
  }
}

}  // namespace polyfuse::cpu
