// Each optimizer pass alone on a hand-made dimension list, then the whole pipeline.
#include <gtest/gtest.h>

#include "tensor_operation_reference.h"

namespace polyfuse::cpu::testing {
namespace {

using D = Dimension;
constexpr ExecType U = ExecType::undefined, SEQ = ExecType::seq, PRIM = ExecType::prim,
                   SH = ExecType::shared;

TEST(OptimizerFuse, FusesASmallDimensionWithItsContinuation) {
  // m split as (m1 = 4 outer, m0 = 2 inner) in every tensor: fused into one m of 8.
  std::vector<D> dims = {{DimType::m, U, 4, 2, 0, 2}, {DimType::n, U, 8, 0, 1, 8},
                         {DimType::m, U, 2, 1, 0, 1}};
  fuse_dimensions(dims, 16);
  ASSERT_EQ(dims.size(), 2u);
  EXPECT_EQ(dims[1], (D{DimType::m, U, 8, 1, 0, 1}));
}

TEST(OptimizerFuse, KeepsDimensionsThatDoNotContinueOrDifferInType) {
  const std::vector<D> original = {{DimType::m, U, 4, 3, 0, 2}, {DimType::n, U, 2, 0, 1, 1},
                                   {DimType::m, U, 2, 1, 0, 1}, {DimType::k, SEQ, 2, 0, 2, 0}};
  std::vector<D> dims = original;
  fuse_dimensions(dims, 16);
  EXPECT_EQ(dims, original);
}

TEST(OptimizerSplit, SplitsIntoMultiplesOfTheMicrokernelRespectingMinimumSize) {
  // The seed's example size 1600 with max 1024 and min 16: k takes the largest divisor
  // <= 1024 leaving both parts >= 16 (100 x 16; 800 x 2 is rejected by min) ...
  std::vector<D> dims = {{DimType::k, U, 1600, 1, 1, 0}};
  split_dimensions(dims, 1024, 16);
  ASSERT_EQ(dims.size(), 2u);
  EXPECT_EQ(dims[0], (D{DimType::k, U, 100, 1, 1, 0}));
  EXPECT_EQ(dims[1], (D{DimType::k, SEQ, 16, 100, 100, 0}));
  // ... and m the largest multiple of 16 doing so (80 x 20).
  dims = {{DimType::m, U, 1600, 1, 0, 1}};
  split_dimensions(dims, 1024, 16);
  EXPECT_EQ(dims[0].size, 80);
  EXPECT_EQ(dims[1].size, 20);
  // m prefers multiples of 16: 1024 with max 256 -> 256 x 4 (min 2).
  dims = {{DimType::m, U, 1024, 1, 0, 1}};
  split_dimensions(dims, 256, 2);
  ASSERT_EQ(dims.size(), 2u);
  EXPECT_EQ(dims[0].size, 256);
  EXPECT_EQ(dims[1], (D{DimType::m, SEQ, 4, 256, 0, 256}));
  // n prefers multiples of 4: 96 with max 40 -> 32 x 3.
  dims = {{DimType::n, U, 96, 0, 1, 1}};
  split_dimensions(dims, 40, 1);
  EXPECT_EQ(dims[0].size, 32);
  EXPECT_EQ(dims[1].size, 3);
  // A prime beyond max stays whole (the kernels take any size).
  dims = {{DimType::m, U, 1031, 1, 0, 1}};
  split_dimensions(dims, 256, 16);
  EXPECT_EQ(dims.size(), 1u);
}

TEST(OptimizerIdentify, FindsBrgemmDimensionsOfTheSeedConfiguration) {
  std::vector<D> dims = dimensions_of(seed_configuration(1));
  for (D& d : dims) d.exec = U;
  EXPECT_EQ(identify_primitives(dims, PrimType::gemm), PrimType::brgemm);
  ASSERT_EQ(dims.size(), 6u);
  // Loops m0, n0 first; then prim br (k0), m, n, k.
  EXPECT_EQ(dims[0], (D{DimType::m, SEQ, 32, 8192, 0, 32768}));
  EXPECT_EQ(dims[1], (D{DimType::n, SEQ, 32, 0, 8192, 1024}));
  EXPECT_EQ(dims[2], (D{DimType::k, PRIM, 8, 1024, 1024, 0}));
  EXPECT_EQ(dims[3], (D{DimType::m, PRIM, 32, 1, 0, 1}));
  EXPECT_EQ(dims[4], (D{DimType::n, PRIM, 32, 0, 32, 32}));
  EXPECT_EQ(dims[5], (D{DimType::k, PRIM, 32, 32, 1, 0}));
}

TEST(OptimizerIdentify, GemmWithoutABatchReduceCandidate) {
  std::vector<D> dims = {{DimType::m, U, 64, 1, 0, 1}, {DimType::n, U, 48, 0, 64, 64},
                         {DimType::k, U, 32, 64, 1, 0}};
  EXPECT_EQ(identify_primitives(dims, PrimType::gemm), PrimType::gemm);
  for (const D& d : dims) EXPECT_EQ(d.exec, PRIM);
}

TEST(OptimizerIdentify, UnaryTranspositionAndBinary) {
  // out(s, r) = in(r, s): prim m = unit stride in in0 (s), prim n = unit stride in out (r).
  std::vector<D> dims = {{DimType::c, U, 5, 7, 0, 1}, {DimType::c, U, 7, 1, 0, 5}, {DimType::c, U, 3, 35, 0, 35}};
  EXPECT_EQ(identify_primitives(dims, PrimType::identity), PrimType::identity);
  EXPECT_EQ(dims[0].size, 3);
  EXPECT_EQ(dims[0].exec, SEQ);
  EXPECT_EQ(dims[1], (D{DimType::c, PRIM, 7, 1, 0, 5}));
  EXPECT_EQ(dims[2], (D{DimType::c, PRIM, 5, 7, 0, 1}));
  dims = {{DimType::n, U, 4, 9, 1, 9}, {DimType::m, U, 9, 1, 0, 1}};
  EXPECT_EQ(identify_primitives(dims, PrimType::add), PrimType::add);
  EXPECT_EQ(dims[0].type, DimType::m);
  EXPECT_EQ(dims[1].type, DimType::n);
}

TEST(OptimizerIdentify, ReportsAMissingDimension) {
  std::vector<D> dims = {{DimType::m, U, 4, 2, 0, 2}, {DimType::n, U, 4, 0, 1, 4}, {DimType::k, U, 4, 8, 1, 0}};
  try {
    identify_primitives(dims, PrimType::gemm);
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "identify_primitives: no m dimension has stride 1 in in0 or out");
  }
}

TEST(OptimizerShared, SharesMAndNLoopsUpToTheTargetAndMovesThemFirst) {
  std::vector<D> dims = {{DimType::k, SEQ, 8, 1, 1, 0}, {DimType::m, SEQ, 4, 1, 0, 1},
                         {DimType::n, SEQ, 8, 0, 1, 4}, {DimType::m, PRIM, 32, 1, 0, 1}};
  select_shared_loops(dims, 16);
  // m (4) fits, n would make 32 > 16: only m is shared; k never is.
  EXPECT_EQ(dims[0], (D{DimType::m, SH, 4, 1, 0, 1}));
  EXPECT_EQ(dims[1].type, DimType::k);
  EXPECT_EQ(dims[1].exec, SEQ);
  EXPECT_EQ(dims[2].exec, SEQ);
  EXPECT_EQ(dims[3].exec, PRIM);
}

TEST(OptimizerShared, SharesALargeLoopWhenNothingFitsAndKeepsExistingShares) {
  std::vector<D> dims = {{DimType::m, SEQ, 100, 1, 0, 1}, {DimType::k, SEQ, 3, 1, 1, 0}};
  select_shared_loops(dims, 8);
  EXPECT_EQ(dims[0].exec, SH);
  std::vector<D> enough = {{DimType::n, SEQ, 4, 0, 1, 1}, {DimType::m, SH, 64, 1, 0, 1}};
  select_shared_loops(enough, 8);
  EXPECT_EQ(enough[0], (D{DimType::m, SH, 64, 1, 0, 1}));
  EXPECT_EQ(enough[1].exec, SEQ);
}

TEST(Optimizer, PipelineOnTheSeedConfigurationGivesAValidBrgemm) {
  TensorOperationConfig c = seed_configuration(3);
  OptimizerOptions options;
  options.thread_target = 64;
  const TensorOperationConfig o = optimize(c, options);
  EXPECT_NO_THROW(validate(o));
  EXPECT_EQ(o.main, PrimType::brgemm);
  EXPECT_EQ(o.exec_types[0], SH);
  EXPECT_EQ(o.dim_sizes[0], 32);
  EXPECT_EQ(o.exec_types.back(), PRIM);
}

}  // namespace
}  // namespace polyfuse::cpu::testing
