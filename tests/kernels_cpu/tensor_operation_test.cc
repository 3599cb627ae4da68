// The tensor-operation backend against the scalar reference: the seed's §5.3
// configurations (smaller outer loops), shared (OpenMP) loops, first/last touch across
// seq k loops, transposition, broadcasting, row-major blocks, dtypes, and optimize().
#include <gtest/gtest.h>

#include "tensor_operation_reference.h"

namespace polyfuse::cpu::testing {
namespace {

void expect_matches(const TensorOperationConfig& config) {
  double tolerance = 0;
  const double diff = run_and_compare(config, tolerance);
  EXPECT_LE(diff, tolerance);
}

TEST(TensorOperation, SeedConfigurationsSequential) {
  for (int which : {1, 2, 3}) {
    SCOPED_TRACE("configuration " + std::to_string(which));
    expect_matches(seed_configuration(which, 3, 2, emulated() ? 2 : 4));
  }
}

TEST(TensorOperation, SeedConfigurationsWithSharedLoops) {
  for (int which : {1, 2, 3}) {
    SCOPED_TRACE("configuration " + std::to_string(which));
    TensorOperationConfig c = seed_configuration(which, 4, 3, 2);
    c.exec_types[0] = c.exec_types[1] = ExecType::shared;
    expect_matches(c);
  }
}

TEST(TensorOperation, ZeroAndReluTouchOnlyFirstAndLastStepOfSeqKLoops) {
  // Two seq k loops around a gemm: zero before the first of 6 steps, relu after the last.
  TensorOperationConfig c;
  c.first_touch = PrimType::zero, c.main = PrimType::gemm, c.last_touch = PrimType::relu;
  c.dim_types = {DimType::k, DimType::n, DimType::k, DimType::m, DimType::n, DimType::k};
  c.exec_types = {ExecType::seq, ExecType::seq, ExecType::seq, ExecType::prim, ExecType::prim, ExecType::prim};
  c.dim_sizes = {2, 2, 3, 17, 5, 7};
  // in0 = A(m, K) column-major (ld 17), K = (ka * 3 + kb) * 7 + k; in1 = B(K, N) row-major
  // (ld 10), N = no * 5 + n; out = C(m, N) row-major (ld 10).
  c.strides_in0 = {3 * 7 * 17, 0, 7 * 17, 1, 0, 17};
  c.strides_in1 = {21 * 10, 5, 7 * 10, 0, 1, 10};
  c.strides_out = {0, 5, 0, 10, 1, 0};
  expect_matches(c);
  c.last_touch = PrimType::gelu;
  expect_matches(c);
}

TEST(TensorOperation, LowPrecisionContraction) {
  for (DType dtype : {DType::f16, DType::bf16}) {
    TensorOperationConfig c = seed_configuration(3, 2, 2, 2);
    c.dtype = dtype;
    expect_matches(c);
  }
}

TEST(TensorOperation, IdentityPermutationTrusToTurs) {
  // The seed's unary example: out(t, r, u, s) = in(t, u, r, s), sizes from {3, 4, 7}.
  for (int64_t T : {3, 7})
    for (int64_t R : {4, 7})
      for (int64_t U : {3, 4})
        for (int64_t S : {3, 7}) {
          TensorOperationConfig c;
          c.main = PrimType::identity;
          c.dim_types = {DimType::c, DimType::c, DimType::c, DimType::c};
          c.exec_types = {ExecType::seq, ExecType::seq, ExecType::prim, ExecType::prim};
          c.dim_sizes = {T, R, U, S};
          c.strides_in0 = {R * U * S, U * S, S, 1};
          c.strides_in1 = {0, 0, 0, 0};
          c.strides_out = {U * R * S, S, R * S, 1};
          expect_matches(c);
          // A real transposition inside the block: dims (t, u, r, s), in0 stored
          // (t, u, r, s), out stored (t, u, s, r); prim block (r, s).
          c.exec_types = {ExecType::shared, ExecType::seq, ExecType::prim, ExecType::prim};
          c.dim_sizes = {T, U, R, S};
          c.strides_in0 = {U * R * S, R * S, S, 1};
          c.strides_out = {U * R * S, R * S, 1, R};
          expect_matches(c);
        }
}

TEST(TensorOperation, BinaryWithBiasBroadcastAndSharedLoops) {
  for (PrimType op : {PrimType::add, PrimType::mul, PrimType::max}) {
    TensorOperationConfig c;
    c.main = op;
    c.dim_types = {DimType::m, DimType::n, DimType::m, DimType::n};
    c.exec_types = {ExecType::shared, ExecType::seq, ExecType::prim, ExecType::prim};
    c.dim_sizes = {3, 2, 19, 6};
    c.strides_in0 = {19 * 12, 19 * 6, 1, 19};
    c.strides_in1 = {0, 6, 0, 1};  // bias(n): broadcast along m
    c.strides_out = {19 * 12, 19 * 6, 1, 19};
    expect_matches(c);
  }
}

TEST(TensorOperation, OptimizedSeedConfigurationsStillMatch) {
  for (int which : {1, 2, 3}) {
    SCOPED_TRACE("configuration " + std::to_string(which));
    TensorOperationConfig c = seed_configuration(which, 4, 2, 2);
    for (ExecType& e : c.exec_types) e = ExecType::undefined;
    OptimizerOptions options;
    options.thread_target = 4;
    options.max_kernel_size = 64;
    const TensorOperationConfig optimized = optimize(c, options);
    EXPECT_NO_THROW(validate(optimized));
    EXPECT_EQ(optimized.main, PrimType::brgemm);
    expect_matches(optimized);
  }
}

TEST(TensorOperation, CountsFlops) {
  const TensorOperation op(seed_configuration(2));
  EXPECT_DOUBLE_EQ(op.flops(), 2.0 * 1024 * 1024 * 256);
}

}  // namespace
}  // namespace polyfuse::cpu::testing
