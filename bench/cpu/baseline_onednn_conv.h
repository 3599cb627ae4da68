// oneDNN's convolution forward (Debian's libdnnl-dev, 2.x API): f32, src and dst NHWC, the
// weights given as KRSC (oneDNN's ohwi; grouped: G x K/G x R x R x C/G, its gohwi) and reordered
// once, at construction, into the layout the primitive prefers; optionally bias + ReLU fused as
// post-ops. OpenMP threads: the primitive is created for `threads` of them, since oneDNN's
// brgemm convolutions split their work for the thread count of the primitive's creation and run
// that many whatever the caller's setting at execution (created under 2 threads, the 1-thread
// rows of 2026-11-25 and before measured oneDNN on both cores: above one core's FMA peak).
#pragma once

#include <cstdint>
#include <memory>

namespace polyfuse::bench {

class OnednnConv {
 public:
  // N x H x W x C input, K x R x R x C / `groups` weights, stride, zero padding on every side.
  // `weights` (and `bias` when fused) are read here, once.
  OnednnConv(int threads, int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r, int64_t stride, int64_t pad,
             bool bias_relu, const float* weights, const float* bias, int64_t groups = 1);
  ~OnednnConv();
  // dst (N x P x Q x K) = conv(src) [+ bias, relu] on the constructor's `threads` threads.
  void operator()(const float* src, float* dst) const;
  // The implementation oneDNN chose ("brg:avx512_core", "jit:avx512_core", "gemm:jit", ...).
  const char* implementation() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace polyfuse::bench
