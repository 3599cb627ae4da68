// oneDNN's fused matmul (Debian's libdnnl-dev, 2.x API), the library a CPU user picks for
// a GEMM with an epilogue: D = post_ops(A B + bias), f32, row-major, on OpenMP threads.
#pragma once

#include <cstdint>
#include <memory>

namespace polyfuse::bench {

// The epilogue after A B (+ bias along the columns n).
enum class FusedEpilogue {
  bias_relu,  // relu(A B + bias)      matmul bias + eltwise_relu post-op
  bias_gelu,  // gelu_erf(A B + bias)  matmul bias + eltwise_gelu_erf post-op
  residual,   // A B + R               sum post-op (D holds R before the call)
  none,       // A B                   no post-op (the batched GEMM's baseline)
  bias,       // A B + bias            matmul bias, no post-op (an MLP's last layer: rows.h)
};

// "bias_relu", "bias_gelu", "residual", "none" or "bias".
const char* to_string(FusedEpilogue epilogue);

// One primitive for `batch` independent m x n x k matmuls (oneDNN's batched matmul when
// batch > 1: 3-d tensors, batch outermost), built once; operator() runs it on `threads`
// threads.
class OnednnMatmul {
 public:
  OnednnMatmul(int64_t m, int64_t n, int64_t k, FusedEpilogue epilogue, int64_t batch = 1);
  ~OnednnMatmul();
  // D = epilogue(A B) with A m x k, B k x n, bias n (unused for residual and none), D m x n
  // (each batch x those, contiguous).
  void operator()(int threads, const float* a, const float* b, const float* bias, float* d) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace polyfuse::bench
