#include "tensor_operation_reference.h"

#include <cmath>

namespace polyfuse::cpu::testing {

int64_t extent(const TensorOperationConfig& c, const std::vector<int64_t>& strides) {
  int64_t last = 0;
  for (size_t i = 0; i < strides.size(); ++i) last += (c.dim_sizes[i] - 1) * strides[i];
  return last + 1;
}

void reference_tensor_operation(const TensorOperationConfig& c, const std::vector<float>& in0,
                                const std::vector<float>& in1, std::vector<float>& out) {
  const size_t dims = c.dim_sizes.size();
  std::vector<int64_t> index(dims, 0);
  std::vector<double> sum(out.size(), 0.0);
  std::vector<bool> touched(out.size(), false);
  const bool contraction = is_contraction(c.main);
  for (;;) {
    int64_t o0 = 0, o1 = 0, oo = 0;
    for (size_t d = 0; d < dims; ++d) {
      o0 += index[d] * c.strides_in0[d];
      o1 += index[d] * c.strides_in1[d];
      oo += index[d] * c.strides_out[d];
    }
    touched[oo] = true;
    if (contraction) {
      sum[oo] += double(in0[o0]) * double(in1[o1]);
    } else if (is_unary(c.main)) {
      const UnaryOp op = c.main == PrimType::identity ? UnaryOp::identity
                       : c.main == PrimType::relu ? UnaryOp::relu
                       : c.main == PrimType::zero ? UnaryOp::zero : UnaryOp::gelu;
      out[oo] = apply(op, in0[o0]);
    } else {
      const BinaryOp op = c.main == PrimType::add ? BinaryOp::add
                        : c.main == PrimType::mul ? BinaryOp::mul : BinaryOp::max;
      out[oo] = apply(op, in0[o0], in1[o1]);
    }
    size_t d = dims;
    while (d > 0 && ++index[d - 1] == c.dim_sizes[d - 1]) index[--d] = 0;
    if (d == 0) break;
  }
  if (!contraction) return;
  for (size_t i = 0; i < out.size(); ++i) {
    if (!touched[i]) continue;
    double v = (c.first_touch == PrimType::zero ? 0.0 : double(out[i])) + sum[i];
    if (c.last_touch == PrimType::relu) v = v > 0 ? v : 0;
    if (c.last_touch == PrimType::gelu) v = apply(UnaryOp::gelu, float(v));
    out[i] = float(v);
  }
}

double run_and_compare(const TensorOperationConfig& config, double& tolerance) {
  std::mt19937 rng(11);
  Buffer a = random_buffer(config.dtype, extent(config, config.strides_in0), rng);
  Buffer b = random_buffer(config.dtype, extent(config, config.strides_in1), rng);
  const bool contraction = is_contraction(config.main);
  const DType out_dtype = contraction ? DType::f32 : config.dtype;
  Buffer out = random_buffer(out_dtype, extent(config, config.strides_out), rng);
  std::vector<float> expected = out.values;
  reference_tensor_operation(config, a.values, b.values, expected);
  const TensorOperation op(config);
  op.execute(a.data(), b.data(), out.data());
  std::vector<float> got(out.values.size());
  for (size_t i = 0; i < got.size(); ++i) got[i] = stored_value(out_dtype, out.data(), i);
  int64_t terms = 1;
  for (size_t d = 0; d < config.dim_types.size(); ++d)
    if (config.dim_types[d] == DimType::k) terms *= config.dim_sizes[d];
  tolerance = contraction ? f32_tolerance(terms) : out_dtype == DType::f32 ? 1e-6 : 1e-2;
  return max_abs_diff(got, expected);
}

TensorOperationConfig seed_configuration(int which, int64_t m0, int64_t n0, int64_t k0) {
  TensorOperationConfig c;
  c.dtype = DType::f32;
  c.first_touch = which == 3 ? PrimType::zero : PrimType::none;
  c.main = which == 1 ? PrimType::gemm : PrimType::brgemm;
  c.last_touch = which == 3 ? PrimType::relu : PrimType::none;
  c.dim_types = {DimType::m, DimType::n, DimType::k, DimType::m, DimType::n, DimType::k};
  c.exec_types = which == 1
      ? std::vector<ExecType>{ExecType::seq, ExecType::seq, ExecType::seq, ExecType::prim, ExecType::prim, ExecType::prim}
      : std::vector<ExecType>{ExecType::seq, ExecType::seq, ExecType::prim, ExecType::prim, ExecType::prim, ExecType::prim};
  c.dim_sizes = {m0, n0, k0, 32, 32, 32};
  // The seed's strides for 32 x 32 x 8 outer loops, generalised to other outer sizes.
  c.strides_in0 = {k0 * 1024, 0, 1024, 1, 0, 32};
  c.strides_in1 = {0, k0 * 1024, 1024, 0, 32, 1};
  c.strides_out = {n0 * 1024, 1024, 0, 1, 32, 0};
  return c;
}

}  // namespace polyfuse::cpu::testing
