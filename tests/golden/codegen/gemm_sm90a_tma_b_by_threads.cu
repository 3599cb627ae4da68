// The sm_90a main loop of def gemm (f16, M = 300, N = 257, K = 128): codegen/hopper_gemm_kernel.h
#include "polyfuse_cuda.cuh"

extern "C" __global__ void __launch_bounds__(384, 1) gemm(const __grid_constant__ pf::sm90::TensorMap A_map,
    const __half* __restrict__ B,
    __half* __restrict__ C) {
  using namespace pf::sm90;
  PF_DYNAMIC_SHARED_SM90(smem);
  // shared memory: a ring of 5 stages of 32768 bytes (A: 128 x 64 K-major at +0, B: 64 x 128 N-major at +16384;
  // 128-byte swizzle), each consumer warpgroup's epilogue staging (8192 floats) from byte 163840, then the
  // mbarriers from byte 229376: the stages' "full" and "empty", one per consumer warpgroup for its epilogue
  unsigned long long* full = reinterpret_cast<unsigned long long*>(smem + 229376);
  unsigned long long* empty = full + 5;
  unsigned long long* epilogue_bar = empty + 5;
  if (threadIdx.x == 0) {
    for (int s = 0; s < 5; ++s) {
      mbarrier_init(full + s, 129);   // thread 0's arrive_expect_tx, the bytes of A, and every
                                      // producer thread once its part of B is written
      mbarrier_init(empty + s, 256);  // every thread of the stage's consumers, once its wgmma retired
    }
    for (int wg = 0; wg < 2; ++wg) mbarrier_init(epilogue_bar + wg, 128);  // the warpgroup's threads
    fence_mbarrier_init();
  }
  __syncthreads();
  // output tiles of 128 x 128: 3 x 3, each block's from blockIdx.x by gridDim.x, in groups of 8 tile
  // rows (pf::grouped_tile_at); `it` counts k-blocks over the tiles, so the ring's stage it % 5 and
  // mbarrier parity (it / 5) & 1 carry from one tile to the next
  if (warpgroup_index() == 0) {
    // the producer warpgroup: its registers to the consumers, then for every k-block of the block's
    // tiles, once the consumers released the stage's previous fill on empty[it % 5]: thread 0
    // loads A by TMA (PTX ISA 9.7.9.27) completing on full[it % 5], and all 128 threads copy
    // B in the layout TMA would write (TMA cannot load B: its rows are 514 bytes apart), make it
    // visible to wgmma (PTX ISA 9.7.13.4 fence.proxy.async) and arrive on full[it % 5]
    setmaxnreg_dec<88>();
    int it = 0;  // k-blocks loaded so far, over the tiles
#pragma unroll 1
    for (int tile = blockIdx.x; tile < 9; tile += gridDim.x) {
      const pf::Tile c = pf::grouped_tile_at(tile, 3, 3, 8);
      const int m0 = c.row * 128, n0 = c.col * 128;
#pragma unroll 1
      for (int kb = 0; kb < 2; ++kb, ++it) {
        const int s = it % 5;
        if (it >= 5) mbarrier_wait(empty + s, static_cast<unsigned>(it / 5 - 1) & 1u);
        unsigned char* stage = smem + s * 32768;
        if (threadIdx.x == 0) {
          mbarrier_arrive_expect_tx(full + s, 16384);
          tma_load_tile(stage, A_map, kb * 64, m0, 128, 1, Swizzle::b128, full + s);
        }
        thread_load_tile<1>(stage + 16384, B, 257, 128, n0, kb * 64, 64, 2, Swizzle::b128, threadIdx.x, 128);
        fence_proxy_async();
        mbarrier_arrive(full + s);
      }
    }
    return;
  }
  // the consumer warpgroups: registers from the producer, then per tile: wait for each k-block's
  // stage, wgmma (PTX ISA 9.7.15) from it, release the previous one; the epilogue
  setmaxnreg_inc<208>();
  const int wg = warpgroup_index() - 1;  // rows 64 wg .. 64 wg + 63 of each 128 x 128 tile
  float* staging = reinterpret_cast<float*>(smem + 163840) + wg * 8192;  // the warpgroup's epilogue staging
  WarpgroupBarrier epilogue_sync{epilogue_bar + wg};
  int it = 0;  // k-blocks consumed so far, over the tiles
#pragma unroll 1
  for (int tile = blockIdx.x; tile < 9; tile += gridDim.x) {
    const pf::Tile c = pf::grouped_tile_at(tile, 3, 3, 8);
    const int m0 = c.row * 128, n0 = c.col * 128;
    WgAcc<128> acc;  // f32 accumulators of C: the warpgroup's 64 x 128 tile
#pragma unroll 1
    for (int kb = 0; kb < 2; ++kb, ++it) {
      const int s = it % 5;
      mbarrier_wait(full + s, static_cast<unsigned>(it / 5) & 1u);
      const unsigned stage = shared_window_address(smem + s * 32768);
      wgmma_k_block<__half, 128, Major::k, Major::mn, Swizzle::b128, Swizzle::b128>(acc, OperandTile{stage, 128, 64, 64 * wg},
          OperandTile{stage + 16384, 128, 64, 0}, 4, kb > 0);
      wgmma_wait<1>();  // k-block kb - 1's wgmma retired: its stage may be refilled
      if (kb > 0) mbarrier_arrive(empty + (it - 1) % 5);
    }
    wgmma_wait<0>();
    mbarrier_arrive(empty + (it - 1) % 5);  // the tile's last k-block retired
    wgmma_fence_operand(acc);
    // the accumulators to C through the warpgroup's shared memory (rows and columns outside
    // 300 x 257 not written)
    const int row0 = m0 + 64 * wg;
    store_wg_acc_staged(acc, staging, C + static_cast<long long>(row0) * 257 + n0, 257, 300 - row0, 257 - n0,
                        epilogue_sync);
  }
}
