// The performance goals of the issues (H100, f16, polyfuse's best configuration, geomean
// over the sizes), and how a measured geomean compares with them:
//   GEMM                  >= 0.9x cuBLAS                                              (issue 7)
//   GEMM + bias + ReLU    >= 1.3x cuBLAS+cuDNN and >= 1.0x cuBLASLt (RELU_BIAS epilogue)
//   Add(GEMM, GEMM)       >= 1.3x cuBLAS+cuDNN
//   GEMM + bias + tanh    >= 1.2x cuBLASLt + extra tanh kernel
//   SwiGLU gate           >= 1.3x two cuBLAS GEMMs + cuDNN's swish and multiply      (issue 21)
//   GEMM + softmax        >= 1.2x cuBLAS + cuDNN's softmax; GEMM + bias + LayerNorm >= 1.2x
//                         cuBLASLt + the extra layer norm kernel                      (issue 20)
//   conv                  >= 0.9x cudnnConvolutionForward, fastest algorithm          (issue 24)
//   conv + bias + ReLU    >= 1.0x cudnnConvolutionBiasActivationForward               (issue 24)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/gpu/idioms.h"
#include "bench/gpu/results.h"

namespace polyfuse::bench {

// One goal: polyfuse_best's geomean speedup over `baseline` for (idiom, dtype).
struct Goal {
  std::string idiom;                          // Idiom::name
  DType dtype = DType::f16;
  Variant baseline = Variant::cublas_cudnn;   // the library variant compared with
  double min_geomean = 1.0;                   // the geomean speedup to reach
};

// The goals above.
const std::vector<Goal>& performance_goals();

// The goal for (idiom, dtype, polyfuse variant `ours`, baseline), if any (only
// polyfuse_best has goals).
std::optional<Goal> find_goal(const std::string& idiom, DType dtype, Variant ours, Variant baseline);

// "goal (H100, f16) >= 1.30x: met (+0.05x)" or "goal (H100, f16) >= 1.30x: MISSED by
// 0.07x (5.4% short)"; "goal ... : not measured" when count == 0.
std::string describe_goal(const Goal& goal, double geomean, int count);

}  // namespace polyfuse::bench
