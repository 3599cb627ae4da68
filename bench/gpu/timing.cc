#include "bench/gpu/timing.h"

#include "bench/gpu/stats.h"

namespace polyfuse::bench {

Timer::Timer(cudaStream_t stream, const ExtraKernels& extra, TimingOptions options)
    : stream_(stream), extra_(extra), options_(options) {
  int device = 0, l2_bytes = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device), "cudaDeviceGetAttribute (L2 size)");
  if (options_.l2_flush) flush_buffer_ = DeviceMemory(2 * static_cast<std::size_t>(l2_bytes > 0 ? l2_bytes : 64 << 20));
  starts_.resize(static_cast<size_t>(options_.repeats));
  stops_.resize(static_cast<size_t>(options_.repeats));
  for (int i = 0; i < options_.repeats; ++i) {
    check_cuda(cudaEventCreate(&starts_[static_cast<size_t>(i)]), "cudaEventCreate");
    check_cuda(cudaEventCreate(&stops_[static_cast<size_t>(i)]), "cudaEventCreate");
  }
}

Timer::~Timer() {
  for (cudaEvent_t event : starts_) cudaEventDestroy(event);
  for (cudaEvent_t event : stops_) cudaEventDestroy(event);
}

void Timer::flush() {
  if (options_.l2_flush)
    check_cuda(cudaMemsetAsync(flush_buffer_.data(), 0, flush_buffer_.bytes(), stream_), "cudaMemsetAsync (L2 flush)");
}

double Timer::median_ms(const std::function<void(cudaStream_t)>& enqueue) {
  for (int i = 0; i < options_.warmup; ++i) {
    flush();
    enqueue(stream_);
  }
  check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (warm-up)");
  if (options_.spin_ms > 0) extra_.spin(options_.spin_ms, stream_);
  for (int i = 0; i < options_.repeats; ++i) {
    flush();
    check_cuda(cudaEventRecord(starts_[static_cast<size_t>(i)], stream_), "cudaEventRecord");
    enqueue(stream_);
    check_cuda(cudaEventRecord(stops_[static_cast<size_t>(i)], stream_), "cudaEventRecord");
  }
  check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (timed launches)");
  times_.clear();
  for (int i = 0; i < options_.repeats; ++i) {
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, starts_[static_cast<size_t>(i)], stops_[static_cast<size_t>(i)]),
               "cudaEventElapsedTime");
    times_.push_back(ms);
  }
  return median(times_);
}

}  // namespace polyfuse::bench
