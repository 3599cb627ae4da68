// Configurations that must be rejected, each with the message that names the field and
// the rule (Halide-style error tests: a bad input and its exact text).
#include <gtest/gtest.h>

#include "tensor_operation_reference.h"

namespace polyfuse::cpu::testing {
namespace {

std::string error_of(const TensorOperationConfig& c) {
  try {
    TensorOperation op(c);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::string error_of(const BrgemmConfig& c) {
  try {
    Brgemm kernel(c);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(Validation, SeedConfigurationsAreAccepted) {
  for (int which : {1, 2, 3}) EXPECT_NO_THROW(validate(seed_configuration(which)));
}

TEST(Validation, ListLengthsMustMatch) {
  TensorOperationConfig c = seed_configuration(1);
  c.strides_in1.pop_back();
  EXPECT_EQ(error_of(c), "TensorOperationConfig.strides_in1: has 5 entries but dim_types has 6 (one entry per dimension)");
  c = seed_configuration(1);
  c.dim_types.clear(), c.exec_types.clear(), c.dim_sizes.clear();
  c.strides_in0.clear(), c.strides_in1.clear(), c.strides_out.clear();
  EXPECT_EQ(error_of(c), "TensorOperationConfig.dim_types: must list at least one dimension");
}

TEST(Validation, SizesAndExecutionOrder) {
  TensorOperationConfig c = seed_configuration(1);
  c.dim_sizes[4] = 0;
  EXPECT_EQ(error_of(c), "TensorOperationConfig.dim_sizes[4]: must be > 0 (got 0)");
  c = seed_configuration(1);
  c.exec_types[1] = ExecType::undefined;
  EXPECT_EQ(error_of(c), "TensorOperationConfig.exec_types[1]: is undefined (set shared, seq or prim, or run optimize())");
  c = seed_configuration(1);
  c.exec_types[1] = ExecType::shared;
  EXPECT_EQ(error_of(c), "TensorOperationConfig.exec_types[1]: shared after a later kind: the order must be shared..., seq..., prim...");
}

TEST(Validation, PrimitiveTypesAndTouches) {
  TensorOperationConfig c = seed_configuration(1);
  c.main = PrimType::none;
  EXPECT_EQ(error_of(c), "TensorOperationConfig.main: must name a primitive (got none)");
  c = seed_configuration(3);
  c.first_touch = PrimType::relu;
  EXPECT_EQ(error_of(c), "TensorOperationConfig.first_touch: must be none or zero (got relu)");
  c = seed_configuration(3);
  c.last_touch = PrimType::add;
  EXPECT_EQ(error_of(c), "TensorOperationConfig.last_touch: must be none or a unary activation (got add)");
  c = seed_configuration(3);
  c.main = PrimType::identity;
  EXPECT_EQ(error_of(c), "TensorOperationConfig.first_touch: needs a gemm or brgemm main primitive (main is identity)");
}

TEST(Validation, PrimitiveDimensionCounts) {
  TensorOperationConfig c = seed_configuration(2);
  c.main = PrimType::gemm;  // two prim k dims
  EXPECT_EQ(error_of(c), "TensorOperationConfig.exec_types: gemm needs exactly one prim m, one prim n and one prim k (found 1 m, 1 n, 2 k)");
  c = seed_configuration(1);
  c.main = PrimType::brgemm;
  EXPECT_EQ(error_of(c), "TensorOperationConfig.exec_types: brgemm needs exactly one prim m, one prim n and two prim k (batch-reduce and k) (found 1 m, 1 n, 1 k)");
  c = seed_configuration(1);
  c.main = PrimType::relu;
  EXPECT_EQ(error_of(c), "TensorOperationConfig.dim_types[2]: k dimensions need a gemm or brgemm main primitive (main is relu)");
}

TEST(Validation, StrideRules) {
  TensorOperationConfig c = seed_configuration(1);
  c.strides_out[2] = 5;
  EXPECT_EQ(error_of(c), "TensorOperationConfig.strides_out[2]: a k dimension must have stride 0 in out");
  c = seed_configuration(1);
  c.strides_in1[0] = 5;
  EXPECT_EQ(error_of(c), "TensorOperationConfig.strides_in1[0]: an m dimension must have stride 0 in in1");
  c = seed_configuration(1);
  c.strides_in0[4] = 5;
  EXPECT_EQ(error_of(c), "TensorOperationConfig.strides_in0[4]: an n dimension must have stride 0 in in0");
  c = seed_configuration(1);
  c.strides_in0[3] = 2;
  EXPECT_EQ(error_of(c), "TensorOperationConfig.strides_in0: the primitive block needs stride 1 in one of its two prim dimensions (got 2 and 32)");
  c = seed_configuration(1);
  c.exec_types[0] = ExecType::shared;
  c.exec_types[2] = ExecType::seq;
  c.strides_out[0] = 0;
  EXPECT_EQ(error_of(c), "TensorOperationConfig.strides_out[0]: a shared dimension needs a non-zero stride in out (parallel iterations would write the same output)");
}

TEST(Validation, KCannotBeShared) {
  TensorOperationConfig c = seed_configuration(1);
  c.exec_types = {ExecType::shared, ExecType::shared, ExecType::shared, ExecType::prim, ExecType::prim, ExecType::prim};
  EXPECT_EQ(error_of(c), "TensorOperationConfig.exec_types[2]: a k dimension cannot be shared (its iterations reduce into the same output)");
}

TEST(Validation, BrgemmConfigErrors) {
  BrgemmConfig b;
  b.m = 4, b.n = 4, b.k = 0;
  EXPECT_EQ(error_of(b), "BrgemmConfig.k: must be > 0 (got 0)");
  b.k = 4, b.batch = -1;
  EXPECT_EQ(error_of(b), "BrgemmConfig.batch: must be > 0 (got -1)");
  b.batch = 1, b.dtype = DType::bf16, b.packing = Packing::never;
  EXPECT_EQ(error_of(b), "BrgemmConfig.packing: never is impossible for a non-f32 dtype");
  b.dtype = DType::f32, b.a_layout = Layout::row_major;
  EXPECT_EQ(error_of(b), "BrgemmConfig.packing: never is impossible for this layout (A' would need transposing)");
  b.a_layout = Layout::col_major, b.packing = Packing::always, b.outer_batch = 0;
  EXPECT_EQ(error_of(b), "BrgemmConfig.outer_batch: must be > 0 (got 0)");
  b.outer_batch = 3;
  EXPECT_EQ(error_of(b), "BrgemmConfig.outer_batch: more than 1 only for a kernel that reads A and B in place (f32, "
                         "packing = never)");
  // automatic reads an outer batch in place even where it would pack for its size
  BrgemmConfig large;
  large.m = 300, large.n = 64, large.k = 2000, large.batch = 3;
  EXPECT_TRUE(Brgemm(large).packs());
  large.outer_batch = 3;
  EXPECT_FALSE(Brgemm(large).packs());
  for (Isa isa : {Isa::avx2, Isa::avx512, Isa::neon}) {
    if (isa_supported(isa)) continue;
    BrgemmConfig forced;
    forced.m = forced.n = forced.k = 4, forced.isa = isa;
    EXPECT_EQ(error_of(forced), std::string("BrgemmConfig.isa: ") + to_string(isa) +
                                    " is not supported by this CPU or build");
  }
}

}  // namespace
}  // namespace polyfuse::cpu::testing
