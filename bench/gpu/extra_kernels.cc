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

// The row kernels of the row idioms' cuBLASLt baseline: one block of 256 threads per row of a
// row-major (rows x columns) matrix, f32 statistics reduced with warp shuffles and then
// across the 8 warps in shared memory, 16-byte loads and stores where the row length is a
// multiple of 8. Each pass re-reads the row (from L1/L2: one row is at most tens of KiB).
constexpr int row_threads = 256;

struct Max { __device__ float operator()(float a, float b) const { return fmaxf(a, b); } };
struct Sum { __device__ float operator()(float a, float b) const { return a + b; } };

// The block's reduction of one value per thread; every thread gets the result.
template <class Op>
__device__ float block_reduce(float value, Op op) {
  __shared__ float partial[row_threads / 32];
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  __syncthreads();  // the previous reduction's readers are done with `partial`
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = value;
  __syncthreads();
  value = partial[0];
#pragma unroll
  for (int w = 1; w < row_threads / 32; ++w) value = op(value, partial[w]);
  return value;
}

// Calls visit(column, value) for every element of `row` this thread owns.
template <class T, class Visit>
__device__ void visit_row(const T* row, long long columns, Visit visit) {
  if (columns % 8 == 0) {
    for (long long c = threadIdx.x * 8ll; c < columns; c += row_threads * 8ll) {
      uint4 packed = *reinterpret_cast<const uint4*>(row + c);
      const T* elements = reinterpret_cast<const T*>(&packed);
#pragma unroll
      for (int i = 0; i < 8; ++i) visit(c + i, to_float(elements[i]));
    }
  } else {
    for (long long c = threadIdx.x; c < columns; c += row_threads) visit(c, to_float(row[c]));
  }
}

// out[c] = value(c, row[c]) for every element of the row this thread owns.
template <class T, class Value>
__device__ void write_row(const T* row, T* out, long long columns, Value value) {
  if (columns % 8 == 0) {
    for (long long c = threadIdx.x * 8ll; c < columns; c += row_threads * 8ll) {
      uint4 packed = *reinterpret_cast<const uint4*>(row + c);
      T* elements = reinterpret_cast<T*>(&packed);
#pragma unroll
      for (int i = 0; i < 8; ++i) elements[i] = from_float<T>(value(c + i, to_float(elements[i])));
      *reinterpret_cast<uint4*>(out + c) = packed;
    }
  } else {
    for (long long c = threadIdx.x; c < columns; c += row_threads) out[c] = from_float<T>(value(c, to_float(row[c])));
  }
}

// out = softmax of each row of in: exp(x - max) / sum.
template <class T>
__device__ void softmax_rows(const T* in, T* out, long long columns) {
  const T* row = in + blockIdx.x * columns;
  float max = -__int_as_float(0x7f800000);  // -inf (NVRTC has no <cmath>)
  visit_row(row, columns, [&](long long, float x) { max = fmaxf(max, x); });
  max = block_reduce(max, Max());
  float sum = 0.0f;
  visit_row(row, columns, [&](long long, float x) { sum += expf(x - max); });
  sum = block_reduce(sum, Sum());
  write_row(row, out + blockIdx.x * columns, columns, [&](long long, float x) { return expf(x - max) / sum; });
}

// out = (x - mean) * rsqrt(var + 1e-5) * gamma + beta over each row of in (the bias is already
// in: cuBLASLt's BIAS epilogue); the variance centred (a second pass), not E[x^2] - mean^2.
template <class T>
__device__ void layernorm_rows(const T* in, const T* gamma, const T* beta, T* out, long long columns) {
  const T* row = in + blockIdx.x * columns;
  float sum = 0.0f;
  visit_row(row, columns, [&](long long, float x) { sum += x; });
  const float mean = block_reduce(sum, Sum()) / static_cast<float>(columns);
  float squares = 0.0f;
  visit_row(row, columns, [&](long long, float x) { squares += (x - mean) * (x - mean); });
  const float scale = rsqrtf(block_reduce(squares, Sum()) / static_cast<float>(columns) + 1e-5f);
  write_row(row, out + blockIdx.x * columns, columns, [&](long long c, float x) {
    return (x - mean) * scale * to_float(gamma[c]) + to_float(beta[c]);
  });
}

extern "C" __global__ void __launch_bounds__(row_threads) pf_bench_softmax_rows_f16(const __half* in, __half* out, long long columns) { softmax_rows(in, out, columns); }
extern "C" __global__ void __launch_bounds__(row_threads) pf_bench_softmax_rows_bf16(const __nv_bfloat16* in, __nv_bfloat16* out, long long columns) { softmax_rows(in, out, columns); }
extern "C" __global__ void __launch_bounds__(row_threads) pf_bench_layernorm_rows_f16(const __half* in, const __half* gamma, const __half* beta, __half* out, long long columns) { layernorm_rows(in, gamma, beta, out, columns); }
extern "C" __global__ void __launch_bounds__(row_threads) pf_bench_layernorm_rows_bf16(const __nv_bfloat16* in, const __nv_bfloat16* gamma, const __nv_bfloat16* beta, __nv_bfloat16* out, long long columns) { layernorm_rows(in, gamma, beta, out, columns); }

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
  return {"pf_bench_relu_f16",           "pf_bench_relu_bf16",           "pf_bench_tanh_f16",
          "pf_bench_tanh_bf16",          "pf_bench_silu_mul_f16",        "pf_bench_silu_mul_bf16",
          "pf_bench_softmax_rows_f16",   "pf_bench_softmax_rows_bf16",   "pf_bench_layernorm_rows_f16",
          "pf_bench_layernorm_rows_bf16", "pf_bench_spin"};
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

void ExtraKernels::softmax_rows(DType dtype, const void* in, void* out, std::int64_t rows, std::int64_t columns,
                                cudaStream_t stream) const {
  const void* in_arg = in;
  void* out_arg = out;
  long long columns_arg = columns;
  void* params[] = {&in_arg, &out_arg, &columns_arg};
  kernel("pf_bench_softmax_rows_" + to_string(dtype))
      .launch({static_cast<unsigned>(rows), 1, 1}, {256, 1, 1}, reinterpret_cast<CUstream>(stream), params);
}

void ExtraKernels::layernorm_rows(DType dtype, const void* in, const void* gamma, const void* beta, void* out,
                                  std::int64_t rows, std::int64_t columns, cudaStream_t stream) const {
  const void* in_arg = in;
  const void* gamma_arg = gamma;
  const void* beta_arg = beta;
  void* out_arg = out;
  long long columns_arg = columns;
  void* params[] = {&in_arg, &gamma_arg, &beta_arg, &out_arg, &columns_arg};
  kernel("pf_bench_layernorm_rows_" + to_string(dtype))
      .launch({static_cast<unsigned>(rows), 1, 1}, {256, 1, 1}, reinterpret_cast<CUstream>(stream), params);
}

void ExtraKernels::spin(double milliseconds, cudaStream_t stream) const {
  unsigned long long nanoseconds = static_cast<unsigned long long>(milliseconds * 1e6);
  void* params[] = {&nanoseconds};
  kernel("pf_bench_spin").launch({1, 1, 1}, {1, 1, 1}, reinterpret_cast<CUstream>(stream), params);
}

}  // namespace polyfuse::bench
