// The tensor-operation backend (seed: tensor-operation-backend §5): one object that
// holds the kernels of a whole tensor contraction / pointwise operation and runs the
// loops around them.
//
// A configuration lists the dimensions of the operation. Each has a type (m, n, k, c),
// an execution type (shared: an OpenMP-parallel loop; seq: a sequential loop; prim:
// handled inside the primitive), a size, and a stride (in elements) in in0, in1 and
// out (0 where the tensor does not use the dimension). The loops run in the listed
// order; all shared dimensions must come first, then seq, then prim.
//
// Main primitives and their primitive dimensions:
//   gemm:   one prim m, n and k         out(m,n) += in0(m,k) * in1(k,n)
//   brgemm: one prim m and n, two prim k (the outer of the two, in list order, is the
//           batch-reduce dimension)
//   identity and the other unary ops: two prim dims (c, or m and n)   out = op(in0)
//   add, sub, mul, div, max, min: two prim dims (c, or m and n)       out = in0 op in1
// A prim block may be column- or row-major in each tensor: the unit-stride dimension
// decides. First touch (zero, or none) runs on an output block before its first
// reduction step, last touch (none or a unary op such as relu) after its last one;
// both are only for gemm/brgemm.
//
// dtype is the element type of in0/in1; out is f32 for gemm/brgemm and dtype otherwise.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "polyfuse/cpu/brgemm.h"
#include "polyfuse/cpu/elementwise.h"

namespace polyfuse::cpu {

enum class PrimType {
  none, zero, identity, relu, sigmoid, tanh, gelu, exp, neg,  // unary
  add, sub, mul, div, max, min,                               // binary
  gemm, brgemm                                                // contractions
};
enum class DimType { m, n, k, c };
enum class ExecType { shared, seq, prim, undefined };

const char* to_string(PrimType type);
const char* to_string(DimType type);
const char* to_string(ExecType type);
bool is_unary(PrimType type);
bool is_binary(PrimType type);
bool is_contraction(PrimType type);  // gemm, brgemm

struct TensorOperationConfig {
  DType dtype = DType::f32;
  PrimType first_touch = PrimType::none;
  PrimType main = PrimType::gemm;
  PrimType last_touch = PrimType::none;
  std::vector<DimType> dim_types;
  std::vector<ExecType> exec_types;
  std::vector<int64_t> dim_sizes;
  std::vector<int64_t> strides_in0;
  std::vector<int64_t> strides_in1;
  std::vector<int64_t> strides_out;
  Isa isa = Isa::native;  // of the BRGEMM kernels
};

// Checks every rule above; throws ConfigError whose text names the field (with the
// dimension index where there is one) and the rule. Returns normally when valid.
void validate(const TensorOperationConfig& config);

class TensorOperation {
 public:
  // Validates and builds the kernels.
  explicit TensorOperation(const TensorOperationConfig& config);
  ~TensorOperation();
  TensorOperation(TensorOperation&&) noexcept;
  TensorOperation& operator=(TensorOperation&&) noexcept;

  // Runs the operation. in1 may be null for unary main primitives. Shared loops run on
  // the OpenMP team (OMP_NUM_THREADS); nothing else allocates or synchronises.
  void execute(const void* in0, const void* in1, void* out) const;

  const TensorOperationConfig& config() const;
  // Floating-point operations of one execute() (2*M*N*K for contractions, else M*N).
  double flops() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace polyfuse::cpu
