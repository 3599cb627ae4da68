// Probe kernels of the Hopper layout oracle tests (layout_oracle_sm90_test.cc): each runs one
// kernels/cuda Hopper helper and writes what it produced to global memory; which element a
// register holds, where a table entry belongs and what a descriptor means is decided by the
// test with the oracle (layout_oracle_sm90.h), never here. Valid CUDA (sm_90a) as well as
// emulator C++ (layout_oracle_sm90_kernels_host.cc).
#include "polyfuse_cuda.cuh"

namespace pfo90 {
using namespace pf::sm90;

// ---- pure functions of the helpers, tabulated ----------------------------------------------

// out[mode * 4096 + offset] = swizzle_offset(mode, offset), mode 0..3 (none, 32B, 64B, 128B).
__device__ void swizzle_table(unsigned* out) {
  for (int i = threadIdx.x; i < 4 * 4096; i += blockDim.x)
    pf::stg(out + i, swizzle_offset(static_cast<Swizzle>(i / 4096), static_cast<unsigned>(i % 4096)));
}

// fields: [count][5] = start, leading, stride, base offset, mode -> make_descriptor.
__device__ void descriptor_table(const unsigned* fields, unsigned long long* out, int count) {
  for (int i = threadIdx.x; i < count; i += blockDim.x) {
    const unsigned* f = fields + 5 * i;
    pf::stg(out + i, make_descriptor(pf::ldg(f), pf::ldg(f + 1), pf::ldg(f + 2), static_cast<Swizzle>(pf::ldg(f + 4)),
                                     pf::ldg(f + 3)));
  }
}

// cfg = {major, mode, mn_extent, k_extent}: offsets[mn * k_extent + k] = tile_offset(...);
// descs[(mn0 / 8) * (k_extent / 16) + kk] = tile_descriptor(..., tile 0, mn0, kk).
__device__ void tile_table(const int* cfg, unsigned* offsets, unsigned long long* descs) {
  const Major major = static_cast<Major>(pf::ldg(cfg));
  const Swizzle s = static_cast<Swizzle>(pf::ldg(cfg + 1));
  const int mn_extent = pf::ldg(cfg + 2), k_extent = pf::ldg(cfg + 3);
  for (int i = threadIdx.x; i < mn_extent * k_extent; i += blockDim.x)
    pf::stg(offsets + i, tile_offset(major, s, mn_extent, k_extent, i / k_extent, i % k_extent));
  const int steps = k_extent / 16;
  for (int i = threadIdx.x; i < (mn_extent / 8) * steps; i += blockDim.x)
    pf::stg(descs + i, tile_descriptor(major, s, 0u, mn_extent, k_extent, 8 * (i / steps), i % steps));
}

// out: [128][128][2] = WgAcc<256>::wg_coord(thread, i); then [128][8][2] = WgFragA::wg_coord.
__device__ void coord_table(int* out) {
  for (int i = threadIdx.x; i < 128 * 128; i += blockDim.x) {
    int row, col;
    WgAcc<256>::wg_coord(static_cast<unsigned>(i / 128), i % 128, row, col);
    pf::stg(out + 2 * i, row);
    pf::stg(out + 2 * i + 1, col);
  }
  int* a = out + 2 * 128 * 128;
  for (int i = threadIdx.x; i < 128 * 8; i += blockDim.x) {
    int row, k;
    WgFragA::wg_coord(static_cast<unsigned>(i / 8), i % 8, row, k);
    pf::stg(a + 2 * i, row);
    pf::stg(a + 2 * i + 1, k);
  }
}

// ---- wgmma on the emulator (or a GPU): one warpgroup per block, block b on slice b ----------

// A (64 x 16) and B (N x 16), [m][k] / [n][k] per block, into K-major unswizzled tiles.
template <int N> __device__ void fill_tiles(const unsigned short* a, const unsigned short* b, unsigned char* smem) {
  const unsigned short* ab = a + blockIdx.x * 64 * 16;
  const unsigned short* bb = b + blockIdx.x * N * 16;
  for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x)
    pf::sts(reinterpret_cast<unsigned short*>(smem + tile_offset(Major::k, Swizzle::none, 64, 16, i / 16, i % 16)),
            pf::ldg(ab + i));
  unsigned char* bt = smem + 64 * 16 * 2;
  for (int i = threadIdx.x; i < N * 16; i += blockDim.x)
    pf::sts(reinterpret_cast<unsigned short*>(bt + tile_offset(Major::k, Swizzle::none, N, 16, i / 16, i % 16)),
            pf::ldg(bb + i));
  fence_proxy_async();
  __syncthreads();
}

template <int N> __device__ void store_registers(WgAcc<N>& acc, float* d) {
  for (int i = 0; i < N / 2; ++i) pf::stg(d + (blockIdx.x * 128 + threadIdx.x) * (N / 2) + i, acc.v[i]);
}

// D = A * B with A and B from shared memory; d: [block][thread][N / 2] raw registers.
template <class T, int N> __device__ void wgmma_ss_probe(const unsigned short* a, const unsigned short* b, float* d) {
  PF_DYNAMIC_SHARED_SM90(smem);
  fill_tiles<N>(a, b, smem);
  const unsigned base = shared_window_address(smem);
  WgAcc<N> acc;
  wgmma_fence();
  wgmma_ss<T, N, Major::k, Major::k>(acc, tile_descriptor(Major::k, Swizzle::none, base, 64, 16, 0, 0),
                                     tile_descriptor(Major::k, Swizzle::none, base + 64 * 16 * 2, N, 16, 0, 0), false);
  wgmma_commit();
  wgmma_wait<0>();
  store_registers(acc, d);
}

// The same with A from registers: a_regs [block][thread][4], as the test laid them out.
template <class T, int N>
__device__ void wgmma_rs_probe(const unsigned* a_regs, const unsigned short* a_unused, const unsigned short* b, float* d) {
  PF_DYNAMIC_SHARED_SM90(smem);
  fill_tiles<N>(a_unused, b, smem);
  const unsigned base = shared_window_address(smem);
  WgFragA frag;
  for (int r = 0; r < 4; ++r) frag.x[r] = pf::ldg(a_regs + (blockIdx.x * 128 + threadIdx.x) * 4 + r);
  WgAcc<N> acc;
  wgmma_fence();
  wgmma_rs<T, N, Major::k>(acc, frag, tile_descriptor(Major::k, Swizzle::none, base + 64 * 16 * 2, N, 16, 0, 0), false);
  wgmma_commit();
  wgmma_wait<0>();
  store_registers(acc, d);
}

// load_wg_frag_a of k-steps 0..3 from a 64 x 64 canonical tile (MA, S) of `a` ([m][k] bits);
// out: [kk][thread][4].
template <Major MA, Swizzle S> __device__ void frag_a_probe(const unsigned short* a, unsigned* out) {
  PF_DYNAMIC_SHARED_SM90(smem);
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x)
    pf::sts(reinterpret_cast<unsigned short*>(smem + tile_offset(MA, S, 64, 64, i / 64, i % 64)), pf::ldg(a + i));
  __syncthreads();
  const OperandTile tile{shared_window_address(smem), 64, 64, 0};
  for (int kk = 0; kk < 4; ++kk) {
    WgFragA frag;
    load_wg_frag_a<MA, S>(frag, smem, tile, kk);
    for (int r = 0; r < 4; ++r) pf::stg(out + (kk * 128 + threadIdx.x) * 4 + r, frag.x[r]);
  }
}

// store_wg_acc of accumulators holding values[thread][i] into a 64 x N row-major `out`.
template <int N> __device__ void store_probe(const float* values, float* out) {
  WgAcc<N> acc;
  for (int i = 0; i < N / 2; ++i) acc.v[i] = pf::ldg(values + threadIdx.x * (N / 2) + i);
  store_wg_acc(acc, out, N, 64, N);
}

}  // namespace pfo90

extern "C" {
__global__ void oracle_sm90_swizzle(unsigned* out) { pfo90::swizzle_table(out); }
__global__ void oracle_sm90_descriptors(const unsigned* fields, unsigned long long* out, int count) {
  pfo90::descriptor_table(fields, out, count);
}
__global__ void oracle_sm90_tile(const int* cfg, unsigned* offsets, unsigned long long* descs) {
  pfo90::tile_table(cfg, offsets, descs);
}
__global__ void oracle_sm90_coords(int* out) { pfo90::coord_table(out); }

#define PFO90_WGMMA(N)                                                                                      \
  __global__ void oracle_wgmma_ss_f16_n##N(const unsigned short* a, const unsigned short* b, float* d) {    \
    pfo90::wgmma_ss_probe<__half, N>(a, b, d);                                                              \
  }                                                                                                         \
  __global__ void oracle_wgmma_ss_bf16_n##N(const unsigned short* a, const unsigned short* b, float* d) {   \
    pfo90::wgmma_ss_probe<__nv_bfloat16, N>(a, b, d);                                                       \
  }                                                                                                         \
  __global__ void oracle_wgmma_rs_f16_n##N(const unsigned* r, const unsigned short* a, const unsigned short* b, \
                                           float* d) {                                                      \
    pfo90::wgmma_rs_probe<__half, N>(r, a, b, d);                                                           \
  }                                                                                                         \
  __global__ void oracle_wgmma_rs_bf16_n##N(const unsigned* r, const unsigned short* a, const unsigned short* b, \
                                            float* d) {                                                     \
    pfo90::wgmma_rs_probe<__nv_bfloat16, N>(r, a, b, d);                                                    \
  }
PFO90_WGMMA(8)
PFO90_WGMMA(16)
PFO90_WGMMA(24)
PFO90_WGMMA(64)
PFO90_WGMMA(128)
PFO90_WGMMA(200)
PFO90_WGMMA(256)
#undef PFO90_WGMMA

#define PFO90_FRAG_A(MA, S)                                                                   \
  __global__ void oracle_frag_a_##MA##_##S(const unsigned short* a, unsigned* out) {          \
    pfo90::frag_a_probe<pf::sm90::Major::MA, pf::sm90::Swizzle::S>(a, out);                   \
  }
PFO90_FRAG_A(k, none)
PFO90_FRAG_A(k, b32)
PFO90_FRAG_A(k, b64)
PFO90_FRAG_A(k, b128)
PFO90_FRAG_A(mn, none)
PFO90_FRAG_A(mn, b32)
PFO90_FRAG_A(mn, b64)
PFO90_FRAG_A(mn, b128)
#undef PFO90_FRAG_A

__global__ void oracle_store_wg_acc_n64(const float* values, float* out) { pfo90::store_probe<64>(values, out); }
__global__ void oracle_store_wg_acc_n256(const float* values, float* out) { pfo90::store_probe<256>(values, out); }
}
