// Kernels for the emulator's own tests (compiled as C++ against the emulation header).
#include "polyfuse_emu/cuda_emulation.h"
#include "polyfuse_cuda.cuh"

// ---- planted bugs ------------------------------------------------------------------------
extern "C" __global__ void planted_global_oob(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  pf::stg(out + i, pf::ldg(in + i + (i == n - 1 ? 1 : 0)));  // the last thread reads in[n]
}
extern "C" __global__ void planted_shared_oob(float* out) {
  PF_DYNAMIC_SHARED(smem);
  float* s = reinterpret_cast<float*>(smem);
  pf::sts(s + threadIdx.x, 1.0f);  // 64 threads, 128 bytes declared: threads >= 32 overrun
  __syncthreads();
  pf::stg(out + threadIdx.x, pf::lds(s + threadIdx.x));
}
extern "C" __global__ void planted_misaligned_load(const unsigned short* in, unsigned short* out) {
  // thread 1 loads 16 bytes at in + 2 (4-byte aligned, not 16): "misaligned address"
  const pf::Chunk16 c = pf::ldg128(in + 8 * threadIdx.x + (threadIdx.x == 1 ? 2 : 0));
  pf::stg128(out + 8 * threadIdx.x, c);
}
extern "C" __global__ void planted_divergent_barrier(float* out) {
  if (threadIdx.x < 16) {
    __syncthreads();
  } else {
    __syncthreads();
  }
  pf::stg(out + threadIdx.x, 1.0f);
}
extern "C" __global__ void planted_early_exit(float* out) {
  if (threadIdx.x == 5) return;
  __syncthreads();
  pf::stg(out + threadIdx.x, 1.0f);
}
extern "C" __global__ void planted_warp_divergence(float* out) {
  const float v = threadIdx.x == 3 ? pf::shfl(1.0f, 0) : pf::warp_sum(1.0f);
  pf::stg(out + threadIdx.x, v);
}

// ---- known access patterns ------------------------------------------------------------------
// Each thread loads one float at in[i * stride] and stores it at out[i].
extern "C" __global__ void strided_copy(const float* in, float* out, int stride) {
  const int i = threadIdx.x;
  pf::stg(out + i, pf::ldg(in + i * stride));
}
// Each lane reads shared word (lane * word_stride) % 1024, as f32; width 16: 128-bit loads of
// chunk lane * word_stride / 4.
extern "C" __global__ void shared_pattern(float* out, int word_stride, int width) {
  PF_DYNAMIC_SHARED(smem);
  float* s = reinterpret_cast<float*>(smem);
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) pf::sts(s + i, static_cast<float>(i));
  __syncthreads();
  const int lane = threadIdx.x;
  float v;
  if (width == 16) {
    const pf::Chunk16 c = pf::lds128(s + (lane * word_stride * 4) % 1024);
    v = __uint_as_float(c.x[0]);
  } else {
    v = pf::lds(s + (lane * word_stride) % 1024);
  }
  __syncthreads();
  pf::stg(out + lane, v);
}
// Warp shuffles and reductions.
extern "C" __global__ void warp_ops(float* out) {
  const float x = static_cast<float>(threadIdx.x);
  pf::stg(out + threadIdx.x, pf::shfl(x, 31 - static_cast<int>(threadIdx.x)));
  pf::stg(out + 32 + threadIdx.x, pf::shfl_xor(x, 1));
  pf::stg(out + 64 + threadIdx.x, pf::warp_sum(x));
  pf::stg(out + 96 + threadIdx.x, pf::warp_max(x));
  pf::stg(out + 128 + threadIdx.x, __shfl_down_sync(0xffffffffu, x, 2));
}
