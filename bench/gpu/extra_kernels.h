// The small CUDA kernels polyfuse-bench needs besides the libraries, compiled at run time
// with NVRTC through polyfuse's kernel cache (runtime/cuda) and launched with the driver
// API, so the project needs no CUDA language support in CMake:
//   relu   out = relu(in)       the cuBLASLt baseline's prologue (cuBLASLt has none)
//   tanh   x = tanh(x) in place the cuBLASLt baseline's activation after its BIAS epilogue
//                               (cuBLASLt has no tanh epilogue)
//   silu_mul out = silu(g) * u  the cuBLASLt baseline's SwiGLU gate after its two matmuls
//   softmax_rows, layernorm_rows the row idioms' cuBLASLt baseline after its matmul: one
//                               block per row, three passes over the row (statistics in f32,
//                               the variance centred), 16-byte loads and stores
//   spin   waits on %globaltimer for a given time: queued before the timed launches so
//          the host's launch overhead is hidden behind it
// The pointwise kernels are memory-bound and simple: each thread converts 8 elements
// (one 16-byte load and store) to f32, applies the function (tanhf: not fast-math) and
// rounds back to nearest.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/gpu/idioms.h"

namespace polyfuse::cuda {
class LoadedKernel;
}

namespace polyfuse::bench {

// The pointwise functions of the extra kernels.
enum class ExtraOp { relu, tanh };

// The CUDA source of every extra kernel (one module).
const std::string& extra_kernels_source();
// The extern "C" names in it: pf_bench_{relu,tanh,silu_mul,softmax_rows,layernorm_rows}_{f16,bf16}
// and pf_bench_spin.
std::vector<std::string> extra_kernel_names();

// The compiled extra kernels, launched on the current context (device 0's primary).
class ExtraKernels {
 public:
  // Compiles the module for `arch` ("sm_90") through the kernel cache. Needs no GPU.
  // Throws polyfuse::CompileError.
  explicit ExtraKernels(const std::string& arch);
  ~ExtraKernels();
  ExtraKernels(const ExtraKernels&) = delete;
  ExtraKernels& operator=(const ExtraKernels&) = delete;

  // out[i] = op(in[i]) for i < count (in == out is allowed), asynchronously on `stream`.
  void pointwise(ExtraOp op, DType dtype, const void* in, void* out, std::int64_t count, cudaStream_t stream) const;
  // out[i] = silu(g[i]) * u[i] for i < count, asynchronously on `stream`.
  void silu_mul(DType dtype, const void* g, const void* u, void* out, std::int64_t count, cudaStream_t stream) const;
  // Softmax over each row of a row-major rows x columns matrix (in == out is allowed).
  void softmax_rows(DType dtype, const void* in, void* out, std::int64_t rows, std::int64_t columns,
                    cudaStream_t stream) const;
  // out = (in - mean) * rsqrt(var + 1e-5) * gamma + beta over each row (gamma, beta: columns).
  void layernorm_rows(DType dtype, const void* in, const void* gamma, const void* beta, void* out, std::int64_t rows,
                      std::int64_t columns, cudaStream_t stream) const;
  // One thread that returns after `milliseconds` of GPU time.
  void spin(double milliseconds, cudaStream_t stream) const;

 private:
  // The kernel named `name` (extra_kernel_names()).
  const cuda::LoadedKernel& kernel(const std::string& name) const;
  // Every kernel of the module, by name.
  std::vector<std::pair<std::string, std::unique_ptr<cuda::LoadedKernel>>> kernels_;
};

}  // namespace polyfuse::bench
