// oneDNN's row primitives (Debian's libdnnl-dev, 2.x API), the baselines of polyfuse-bench-cpu's
// `rows` section: softmax and layer normalisation over the last axis of an M x N f32 matrix
// (row-major), on OpenMP threads.
#pragma once

#include <cstdint>
#include <memory>

namespace polyfuse::bench {

// The row operation of one primitive.
enum class RowOperation {
  softmax,    // y = exp(x - max) / sum(exp(x - max)) along each row: softmax_forward
  layernorm,  // y = (x - mean) rsqrt(var + 1e-5) gamma + beta: layer_normalization_forward (scale, shift)
};

// "softmax" or "layernorm".
const char* to_string(RowOperation operation);

// One primitive for m x n, built once; operator() runs it on `threads` threads.
class OnednnRows {
 public:
  OnednnRows(int64_t m, int64_t n, RowOperation operation);
  ~OnednnRows();
  // y = operation(x); gamma and beta (n each) only for layernorm.
  void operator()(int threads, const float* x, const float* gamma, const float* beta, float* y) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace polyfuse::bench
