// Optimizer passes of the tensor-operation backend (seed: tensor-operation-backend §5.5).
// Each pass is a free function over a list of Dimension values, testable alone; the
// driver optimize() runs them in the seed's order:
//   fuse_dimensions -> split_dimensions -> identify_primitives -> select_shared_loops.
#pragma once

#include <cstdint>
#include <vector>

#include "polyfuse/cpu/tensor_operation.h"

namespace polyfuse::cpu {

struct Dimension {
  DimType type = DimType::m;
  ExecType exec = ExecType::undefined;
  int64_t size = 1;
  int64_t stride_in0 = 0;
  int64_t stride_in1 = 0;
  int64_t stride_out = 0;
  bool operator==(const Dimension&) const = default;
};

// Config <-> dimension list (the config's dtype and primitive types are kept aside).
std::vector<Dimension> dimensions_of(const TensorOperationConfig& config);
void set_dimensions(TensorOperationConfig& config, const std::vector<Dimension>& dims);

// Fuses a dimension smaller than min_size with another of the same type and compatible
// execution type that continues it in every tensor (stride(outer) = size(inner) *
// stride(inner) for in0, in1 and out). The fused dimension keeps the inner strides.
void fuse_dimensions(std::vector<Dimension>& dims, int64_t min_size);

// Splits every dimension larger than max_size into an outer seq dimension and an inner
// one of at most max_size, preferring inner sizes that are multiples of the microkernel
// (m: 16, 12, 8; n: 4; then 2) and both parts >= min_size where possible. New outer
// dimensions are appended (and may be split again).
void split_dimensions(std::vector<Dimension>& dims, int64_t max_size, int64_t min_size);

// Picks the primitive dimensions (all others become seq unless already shared) and
// moves them to the end, for a main primitive of `main`'s kind:
//   contraction: prim m = unit stride in in0 and out; prim n = smallest in1 stride
//     among n dims; prim k = unit stride in in1; a second k dim absent from out and
//     not unit-stride in in1 becomes the batch-reduce dim (then the result is brgemm).
//   binary: prim m = the m/c dim with unit stride in out; prim n = the n/c dim with
//     the smallest out stride among the rest.
//   unary: prim m = the dim with unit stride in in0; prim n = the dim with unit stride
//     in out if that is another dim (transposition), else the smallest in0 stride.
// Returns the main primitive: gemm or brgemm for contractions, else `main`.
// Throws ConfigError if a required dimension does not exist.
PrimType identify_primitives(std::vector<Dimension>& dims, PrimType main);

// Makes seq m/n/c dims shared (never k: they reduce into the same output) until the
// product of the shared sizes would exceed thread_target, then moves the shared dims to
// the front (stable order otherwise).
void select_shared_loops(std::vector<Dimension>& dims, int64_t thread_target);

struct OptimizerOptions {
  int64_t thread_target = 0;     // 0: omp_get_max_threads() * 4 (1 * 4 without OpenMP)
  int64_t max_kernel_size = 256;
  int64_t min_kernel_size = 16;
};

// Runs the four passes on config's dimensions and returns the optimised config
// (main becomes gemm/brgemm as identified). The result passes validate().
TensorOperationConfig optimize(const TensorOperationConfig& config,
                               const OptimizerOptions& options = {});

}  // namespace polyfuse::cpu
