// What one benchmark run measures: the run's environment and one row per problem
// (idiom, element type, size) with each variant's median time.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/gpu/idioms.h"
#include "bench/gpu/sizes.h"

namespace polyfuse::bench {

// The things a problem is timed with.
enum class Variant {
  cublas_cudnn,      // the paper's baseline: cublasGemmEx (+ cuDNN pointwise operations)
  cublaslt,          // cuBLASLt with its fused epilogues (+ an extra kernel where it lacks the op)
  polyfuse_default,  // polyfuse's kernel with the compiler's default tile configuration
  polyfuse_best,     // the fastest of polyfuse's tuning configurations (tile_configs.h)
  polyfuse_autotuned,  // the autotuner's winner (--autotune; polyfuse/autotune.h)
  cudnn_conv,        // convolutions: cudnnConvolutionForward with the fastest algorithm cuDNN finds
                     // (+ cuDNN's pointwise operations for the epilogue)
  cudnn_fused,       // convolutions: cudnnConvolutionBiasActivationForward (bias, residual, ReLU fused)
};
// "cublas_cudnn", "cublaslt", "polyfuse_default", "polyfuse_best", "cudnn_conv",
// "cudnn_fused" (CSV, command line).
std::string to_string(Variant variant);
// The two library baselines of the GEMM idioms, in report order.
const std::vector<Variant>& baseline_variants();
// The two library baselines of the convolution idioms (conv_idioms.h), in report order.
const std::vector<Variant>& conv_baseline_variants();
// The baselines of the idiom named `idiom` (a convolution's or a GEMM's).
const std::vector<Variant>& baselines_of(const std::string& idiom);

// Facts about the machine and the run, repeated in every CSV row.
struct RunEnvironment {
  std::string gpu;           // "NVIDIA H100 80GB HBM3 (sm_90)"
  std::string driver;        // "580.65.06 (CUDA 13.0)": NVML's driver version, cudaDriverGetVersion
  std::string cuda_runtime;  // "13.0" (cudaRuntimeGetVersion)
  std::string cublas;        // "13.0.2"
  std::string cudnn;         // "9.19.0", or "not built"
  std::string date;          // UTC, "2025-01-31T12:00:00Z"
  std::string command;       // the exact command line
  std::string arch;          // the kernels' target ("sm_90a"), --arch or the GPU's
  bool l2_flush = true;      // L2 flushed before every timed launch
  int repeats = 20;          // timed launches per variant (median reported)
  int warmup = 5;            // untimed launches before them
};

// One problem's results (a convolution's size is its implicit GEMM's: M = N * P * Q, N = K,
// K = R * S * C, batch 1; `layer` names the convolution). A time is absent when the variant is not available for the
// idiom (or not built), was not supported by the library, or failed its check.
struct ResultRow {
  std::string idiom;
  DType dtype = DType::f16;
  ProblemSize size;
  std::optional<double> cublas_cudnn_ms;
  std::optional<double> cublaslt_ms;
  std::optional<double> polyfuse_default_ms;
  std::optional<double> polyfuse_best_ms;
  std::optional<double> cudnn_conv_ms;   // convolution idioms only
  std::optional<double> cudnn_fused_ms;  // convolution idioms only
  std::string layer;                     // convolutions: "res2 3x3: N32 56x56 C64 K64 3x3 s1 p1"
  std::string polyfuse_best_config;  // to_string(TileConfig) of the fastest
  std::optional<double> polyfuse_autotuned_ms;  // --autotune
  std::string polyfuse_autotuned_config;        // "block=128x256x32 stages=3 (timed)"
  std::string check = "ok";          // "ok", or what failed ("cublaslt: D[3, 5] = ...")
  std::string notes;                 // variants not measured and why; configurations rejected

  // The time of `variant` (absent if not measured).
  std::optional<double> time_ms(Variant variant) const;
  // baseline time / polyfuse time for polyfuse variant `ours` (best or default) against
  // `baseline`; absent unless both were measured.
  std::optional<double> speedup(Variant ours, Variant baseline) const;
};

}  // namespace polyfuse::bench
