// The library baselines as launch sequences: for an idiom, the cuBLAS + cuDNN sequence
// (the paper's baseline) and the cuBLASLt sequence (fused epilogues + extra kernels),
// each a function that queues one execution on a stream. plan.cc describes the same
// sequences in words for --dry-run; keep the two in step.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <memory>

#include "bench/gpu/baselines_cublas.h"
#include "bench/gpu/baselines_cublaslt.h"
#include "bench/gpu/baselines_cudnn.h"
#include "bench/gpu/device_problem.h"
#include "bench/gpu/extra_kernels.h"
#include "bench/gpu/options.h"
#include "bench/gpu/timing.h"
#include "bench/gpu/results.h"

namespace polyfuse::bench {

// Queues one execution of a variant on the given stream.
using Enqueue = std::function<void(cudaStream_t)>;

// The libraries of a run (created once).
struct Libraries {
  Cublas cublas;
  CublasLt cublaslt;
  std::unique_ptr<Cudnn> cudnn;  // null when built without cuDNN
  const ExtraKernels* extra = nullptr;
};

// What measuring one problem needs.
struct RunContext {
  const BenchOptions& options;
  Libraries& libraries;
  Stream& stream;
  Timer& timer;
};

// The launch sequence of `variant` (cublas_cudnn or cublaslt) for `idiom` on `problem`
// (whose buffers must outlive the result). Throws Unsupported when the variant cannot
// compute the idiom (no cuDNN GELU, cuDNN not built, no cuBLASLt algorithm).
Enqueue make_baseline(Variant variant, const Idiom& idiom, DType dtype, const ProblemSize& size,
                      const DeviceProblem& problem, Libraries& libraries);

}  // namespace polyfuse::bench
