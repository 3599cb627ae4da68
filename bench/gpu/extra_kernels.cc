#include "bench/gpu/extra_kernels.h"

#include <stdexcept>

#include "runtime/cuda/cuda_module.h"
#include "runtime/cuda/kernel_cache.h"

namespace polyfuse::bench {

const std::string& extra_kernels_source() {
  static const std::string source = R"(// polyfuse-bench extra kernels (bench/gpu/extra_kernels.cc)
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
template <class T> __device__ __forceinline__ T from_float(float x);
template <> __device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

struct Relu { __device__ float operator()(float x) const { return x > 0.0f ? x : 0.0f; } };
struct Tanh { __device__ float operator()(float x) const { return tanhf(x); } };

// 8 elements per thread: one 16-byte load and store when all 8 are in range.
template <class T, class Op>
__device__ void pointwise(const T* in, T* out, long long count) {
  const long long first = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * 8;
  if (first + 8 <= count) {
    uint4 packed = *reinterpret_cast<const uint4*>(in + first);
    T* elements = reinterpret_cast<T*>(&packed);
#pragma unroll
    for (int i = 0; i < 8; ++i) elements[i] = from_float<T>(Op()(to_float(elements[i])));
    *reinterpret_cast<uint4*>(out + first) = packed;
  } else {
    for (long long i = first; i < count; ++i) out[i] = from_float<T>(Op()(to_float(in[i])));
  }
}

extern "C" __global__ void pf_bench_relu_f16(const __half* in, __half* out, long long count) { pointwise<__half, Relu>(in, out, count); }
extern "C" __global__ void pf_bench_relu_bf16(const __nv_bfloat16* in, __nv_bfloat16* out, long long count) { pointwise<__nv_bfloat16, Relu>(in, out, count); }
extern "C" __global__ void pf_bench_tanh_f16(const __half* in, __half* out, long long count) { pointwise<__half, Tanh>(in, out, count); }
extern "C" __global__ void pf_bench_tanh_bf16(const __nv_bfloat16* in, __nv_bfloat16* out, long long count) { pointwise<__nv_bfloat16, Tanh>(in, out, count); }

// out = silu(g) * u, 8 elements per thread (SwiGLU's gate after two cuBLASLt matmuls).
template <class T>
__device__ void silu_mul(const T* g, const T* u, T* out, long long count) {
  const long long first = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * 8;
  const long long last = first + 8 <= count ? first + 8 : count;
  for (long long i = first; i < last; ++i) {
    const float x = to_float(g[i]);
    out[i] = from_float<T>(x / (1.0f + expf(-x)) * to_float(u[i]));
  }
}

extern "C" __global__ void pf_bench_silu_mul_f16(const __half* g, const __half* u, __half* out, long long count) { silu_mul(g, u, out, count); }
extern "C" __global__ void pf_bench_silu_mul_bf16(const __nv_bfloat16* g, const __nv_bfloat16* u, __nv_bfloat16* out, long long count) { silu_mul(g, u, out, count); }

// Busy-waits `nanoseconds` of the GPU's global timer.
extern "C" __global__ void pf_bench_spin(unsigned long long nanoseconds) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < nanoseconds);
}
)";
  return source;
}

std::vector<std::string> extra_kernel_names() {
  return {"pf_bench_relu_f16",     "pf_bench_relu_bf16",     "pf_bench_tanh_f16", "pf_bench_tanh_bf16",
          "pf_bench_silu_mul_f16", "pf_bench_silu_mul_bf16", "pf_bench_spin"};
}

ExtraKernels::ExtraKernels(const std::string& arch) {
  cuda::NvrtcOptions options;
  options.arch = arch;
  cuda::CacheLookup lookup = cuda::KernelCache::global().compile(extra_kernels_source(), options, "pf_bench_extra");
  for (const std::string& name : extra_kernel_names())
    kernels_.emplace_back(name, std::make_unique<cuda::LoadedKernel>(lookup.output, name, 0));
}

ExtraKernels::~ExtraKernels() = default;

const cuda::LoadedKernel& ExtraKernels::kernel(const std::string& name) const {
  for (const auto& [kernel_name, kernel] : kernels_)
    if (kernel_name == name) return *kernel;
  throw std::logic_error("polyfuse-bench: no extra kernel " + name);
}

void ExtraKernels::pointwise(ExtraOp op, DType dtype, const void* in, void* out, std::int64_t count,
                             cudaStream_t stream) const {
  const std::string name = std::string("pf_bench_") + (op == ExtraOp::relu ? "relu_" : "tanh_") + to_string(dtype);
  constexpr unsigned threads = 256;
  const std::int64_t per_block = threads * 8;
  const unsigned blocks = static_cast<unsigned>((count + per_block - 1) / per_block);
  const void* in_arg = in;
  void* out_arg = out;
  long long count_arg = count;
  void* params[] = {&in_arg, &out_arg, &count_arg};
  kernel(name).launch({blocks, 1, 1}, {threads, 1, 1}, reinterpret_cast<CUstream>(stream), params);
}

void ExtraKernels::silu_mul(DType dtype, const void* g, const void* u, void* out, std::int64_t count,
                            cudaStream_t stream) const {
  constexpr unsigned threads = 256;
  const std::int64_t per_block = threads * 8;
  const unsigned blocks = static_cast<unsigned>((count + per_block - 1) / per_block);
  const void* g_arg = g;
  const void* u_arg = u;
  void* out_arg = out;
  long long count_arg = count;
  void* params[] = {&g_arg, &u_arg, &out_arg, &count_arg};
  kernel("pf_bench_silu_mul_" + to_string(dtype)).launch({blocks, 1, 1}, {threads, 1, 1}, reinterpret_cast<CUstream>(stream), params);
}

void ExtraKernels::spin(double milliseconds, cudaStream_t stream) const {
  unsigned long long nanoseconds = static_cast<unsigned long long>(milliseconds * 1e6);
  void* params[] = {&nanoseconds};
  kernel("pf_bench_spin").launch({1, 1, 1}, {1, 1, 1}, reinterpret_cast<CUstream>(stream), params);
}

}  // namespace polyfuse::bench
