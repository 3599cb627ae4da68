// The sm_90a main loop of def gemm (f16, M = 300, N = 256, K = 128): codegen/hopper_gemm_kernel.h
#include "polyfuse_cuda.cuh"

extern "C" __global__ void __launch_bounds__(256, 1) gemm(const __grid_constant__ pf::sm90::TensorMap A_map,
    const __grid_constant__ pf::sm90::TensorMap B_map,
    __half* __restrict__ C) {
  using namespace pf::sm90;
  PF_DYNAMIC_SHARED_SM90(smem);
  // shared memory: 6 stages of 32768 bytes (A: 128 x 64 K-major at +0, B: 64 x 128 N-major at +16384; 128-byte
  // swizzle), then the stages' "full" and "empty" mbarriers at byte 196608
  unsigned long long* full = reinterpret_cast<unsigned long long*>(smem + 196608);
  unsigned long long* empty = full + 6;
  const int m0 = blockIdx.y * 128, n0 = blockIdx.x * 128;
  const bool producer = threadIdx.x == 0;  // issues the TMA loads
  const int wg = threadIdx.x / 128;  // consumer warpgroup: rows 64 wg .. 64 wg + 63 of the 128 x 128 tile
  if (producer) {
    for (int s = 0; s < 6; ++s) {
      mbarrier_init(full + s, 1);     // the producer's arrive_expect_tx, then the bytes
      mbarrier_init(empty + s, 256);  // every consumer thread, once its wgmma retired
    }
    fence_mbarrier_init();
  }
  __syncthreads();
  // TMA (PTX ISA 9.7.9.25): k-block kb of A and B into stage kb % 6, completing on full[kb % 6]
  const auto load_k_block = [&](int kb) {
    const int s = kb % 6;
    unsigned char* stage = smem + s * 32768;
    mbarrier_arrive_expect_tx(full + s, 32768);
    tma_load_tile(stage, A_map, kb * 64, m0, 128, 1, Swizzle::b128, full + s);
    tma_load_tile(stage + 16384, B_map, n0, kb * 64, 64, 2, Swizzle::b128, full + s);
  };
  if (producer)
    for (int kb = 0; kb < 2; ++kb) load_k_block(kb);
  WgAcc<128> acc;  // f32 accumulators of C: the warpgroup's 64 x 128 tile
  // k-blocks: wait for a stage, wgmma (PTX ISA 9.7.15) from it, release the previous one
#pragma unroll 1
  for (int kb = 0; kb < 2; ++kb) {
    const int s = kb % 6;
    mbarrier_wait(full + s, static_cast<unsigned>(kb / 6) & 1u);
    const unsigned stage = shared_window_address(smem + s * 32768);
    wgmma_k_block<__half, 128, Major::k, Major::mn, Swizzle::b128, Swizzle::b128>(acc, OperandTile{stage, 128, 64, 64 * wg},
        OperandTile{stage + 16384, 128, 64, 0}, 4, kb > 0);
    wgmma_wait<1>();  // k-block kb - 1's wgmma retired: its stage may be refilled
    if (kb > 0) mbarrier_arrive(empty + (kb - 1) % 6);
    const int next = kb + 5;
    if (producer && next < 2) {
      if (next >= 6) mbarrier_wait(empty + next % 6, static_cast<unsigned>(next / 6 - 1) & 1u);
      load_k_block(next);
    }
  }
  wgmma_wait<0>();
  wgmma_fence_operand(acc);
  // the accumulators to C (rows and columns outside 300 x 256 not written), through the stages'
  // shared memory: every TMA load landed and every wgmma retired
  const int row0 = m0 + 64 * wg;  // the warpgroup's rows, staged at its own 33792 bytes
  store_wg_acc_staged<true>(acc, reinterpret_cast<float*>(smem) + wg * 8448, C + static_cast<long long>(row0) * 256 + n0,
                      256, 300 - row0, 256 - n0);
}
