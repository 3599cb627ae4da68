// What a run consists of: which variants time each idiom (with what library calls), the
// list of problems (size x idiom x dtype), and the --dry-run listing of all of it.
#pragma once

#include <string>
#include <vector>

#include "bench/gpu/idioms.h"
#include "bench/gpu/options.h"
#include "bench/gpu/results.h"
#include "bench/gpu/tile_configs.h"

namespace polyfuse::bench {

// What this build of polyfuse-bench can do.
struct BuildFeatures {
  bool cudnn = false;         // built with cuDNN (the cuBLAS + cuDNN baseline)
  std::string cudnn_version;  // "9.19.0" when built with it
};

// How `variant` computes `idiom`, or why it cannot: `available` false and `how` the reason.
struct VariantPlan {
  Variant variant = Variant::cublas_cudnn;
  bool available = true;
  std::string how;  // "cublasGemmEx, then cudnnAddTensor (bias), cudnnActivationForward (relu)"
};

// The plan of every variant of `idiom`, in Variant order.
std::vector<VariantPlan> variant_plans(const Idiom& idiom, const BuildFeatures& features);

// One problem of a run.
struct Problem {
  int size_index = 0;  // 0-based position in options.sizes
  ProblemSize size;    // batch is 1 for idioms that are not batched
  const Idiom* idiom = nullptr;
  DType dtype = DType::f16;
};

// Every problem of a run, size-major (all idioms and dtypes of a size, then the next).
std::vector<Problem> plan_problems(const BenchOptions& options);

// The tile configurations polyfuse_best tries for `problem` (the default alone with
// --no-tune; only configurations whose block tile divides the sizes).
std::vector<TileConfig> planned_configs(const BenchOptions& options, const Problem& problem);

// One convolution problem of a run.
struct ConvProblem {
  int layer_index = 0;  // 0-based position in options.conv_layers
  ConvShape shape;
  const ConvIdiom* idiom = nullptr;
  DType dtype = DType::f16;
};

// Every convolution problem of a run, layer-major; an idiom is left out of the layers it
// does not apply to (conv_applies).
std::vector<ConvProblem> plan_conv_problems(const BenchOptions& options);

// The plan of each baseline of a convolution idiom (cudnn_conv, cudnn_fused), then
// polyfuse's (default and best: the default configuration alone, the compiler choosing
// the kernel).
std::vector<VariantPlan> conv_variant_plans(const ConvIdiom& idiom, const BuildFeatures& features);

// The --dry-run listing: a header (sizes, method, checks, each idiom's variants, the
// tile configurations, outputs, the device) and one line per problem:
//   run    1/100  M=2432 N=640 K=3968 batch=1  gemm_bias_relu     f16  : cublas_cudnn cublaslt polyfuse_default polyfuse_best(6 configs)
// then one line per convolution problem:
//   conv   1/12  res2 3x3     N32 56x56 C64 K64 3x3 s1 p1   conv_bias_relu f16 : cudnn_conv cudnn_fused polyfuse_default
// `device` is cuda_device_description()'s text.
std::string dry_run_listing(const BenchOptions& options, const BuildFeatures& features, const std::string& device);

}  // namespace polyfuse::bench
