// The sm_90a main loop of def gemm (bf16, M = 192, N = 200, K = 264): codegen/hopper_gemm_kernel.h
#include "polyfuse_cuda.cuh"

extern "C" __global__ void __launch_bounds__(128, 1) gemm(const __grid_constant__ pf::sm90::TensorMap A_map,
    const __grid_constant__ pf::sm90::TensorMap B_map, __nv_bfloat16* __restrict__ C) {
  using namespace pf::sm90;
  PF_DYNAMIC_SHARED_SM90(smem);
  // shared memory: 4 stages of 24576 bytes (A: 64 x 64 M-major at +0, B: 64 x 128 K-major at +8192; 128-byte
  // swizzle), then the stages' "full" and "empty" mbarriers at byte 98304
  unsigned long long* full = reinterpret_cast<unsigned long long*>(smem + 98304);
  unsigned long long* empty = full + 4;
  const int m0 = blockIdx.y * 64, n0 = blockIdx.x * 128;
  const bool producer = threadIdx.x == 0;  // issues the TMA loads
  if (producer) {
    for (int s = 0; s < 4; ++s) {
      mbarrier_init(full + s, 1);     // the producer's arrive_expect_tx, then the bytes
      mbarrier_init(empty + s, 128);  // every consumer thread, once its wgmma retired
    }
    fence_mbarrier_init();
  }
  __syncthreads();
  // TMA (PTX ISA 9.7.9.25): k-block kb of A and B into stage kb % 4, completing on full[kb % 4]
  const auto load_k_block = [&](int kb) {
    const int s = kb % 4;
    unsigned char* stage = smem + s * 24576;
    mbarrier_arrive_expect_tx(full + s, 24576);
    tma_load_tile(stage, A_map, m0, kb * 64, 64, 1, Swizzle::b128, full + s);
    tma_load_tile(stage + 8192, B_map, kb * 64, n0, 128, 1, Swizzle::b128, full + s);
  };
  if (producer)
    for (int kb = 0; kb < 3; ++kb) load_k_block(kb);
  WgAcc<128> acc;  // f32 accumulators of C: the warpgroup's 64 x 128 tile
  // k-blocks: wait for a stage, wgmma (PTX ISA 9.7.15) from it, release the previous one
#pragma unroll 1
  for (int kb = 0; kb < 5; ++kb) {
    const int s = kb % 4;
    mbarrier_wait(full + s, static_cast<unsigned>(kb / 4) & 1u);
    const unsigned stage = shared_window_address(smem + s * 24576);
    wgmma_k_block<__nv_bfloat16, 128, Major::mn, Major::k, Swizzle::b128, Swizzle::b128>(acc, OperandTile{stage, 64, 64, 0},
        OperandTile{stage + 8192, 128, 64, 0}, 4, kb > 0);
    wgmma_wait<1>();  // k-block kb - 1's wgmma retired: its stage may be refilled
    if (kb > 0) mbarrier_arrive(empty + (kb - 1) % 4);
    const int next = kb + 3;
    if (producer && next < 5) {
      if (next >= 4) mbarrier_wait(empty + next % 4, static_cast<unsigned>(next / 4 - 1) & 1u);
      load_k_block(next);
    }
  }
  wgmma_wait<0>();
  wgmma_fence_operand(acc);
  // the accumulators to C (rows and columns outside 192 x 200 not written), through the stages'
  // shared memory: every TMA load landed and every wgmma retired
  store_wg_acc_staged(acc, reinterpret_cast<float*>(smem), C + static_cast<long long>(m0) * 200 + n0, 200,
                      192 - m0, 200 - n0);
}
