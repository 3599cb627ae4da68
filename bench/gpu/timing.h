// How a variant is timed: CUDA events around each launch, on one stream.
//
//   1. `warmup` untimed launches (each after an L2 flush), then a synchronize;
//   2. the spin kernel (extra_kernels.h) for `spin_ms`, so that everything after it is
//      queued while the GPU is busy and the host's launch overhead is not timed;
//   3. `repeats` times: L2 flush (cudaMemsetAsync over a buffer twice the L2 size), event,
//      the launch(es) of the variant, event;
//   4. a synchronize; the result is the median of the `repeats` event intervals.
// A variant of several launches (GEMM, then cuDNN ops) is timed as a whole.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <vector>

#include "bench/gpu/cuda_util.h"
#include "bench/gpu/extra_kernels.h"

namespace polyfuse::bench {

// The method's parameters (from BenchOptions).
struct TimingOptions {
  int warmup = 5;
  int repeats = 20;
  bool l2_flush = true;
  double spin_ms = 10;
};

class Timer {
 public:
  // Allocates the flush buffer (twice cudaDevAttrL2CacheSize) and the events.
  Timer(cudaStream_t stream, const ExtraKernels& extra, TimingOptions options);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // The median time in milliseconds of `enqueue`, which queues one execution of a variant
  // on the stream it is given. Throws BenchError on a CUDA error.
  double median_ms(const std::function<void(cudaStream_t)>& enqueue);

  // The times of the last median_ms call, in launch order.
  const std::vector<double>& last_times() const { return times_; }

 private:
  void flush();
  cudaStream_t stream_;
  const ExtraKernels& extra_;
  TimingOptions options_;
  DeviceMemory flush_buffer_;
  std::vector<cudaEvent_t> starts_, stops_;
  std::vector<double> times_;
};

}  // namespace polyfuse::bench
