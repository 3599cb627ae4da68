// The sm_90a main loop of def gemm_bias_relu (M = 300, N = 256, K = 192), ping-pong
#include "polyfuse_cuda.cuh"

extern "C" __global__ void __launch_bounds__(384, 1) gemm_bias_relu(const __grid_constant__ pf::sm90::TensorMap A_map,
    const __grid_constant__ pf::sm90::TensorMap B_map,
    const __half* __restrict__ bias,
    __half* __restrict__ D) {
  using namespace pf::sm90;
  PF_DYNAMIC_SHARED_SM90(smem);
  // shared memory: a ring of 6 stages of 24576 bytes (A: 64 x 64 K-major at +0, B: 64 x 128 N-major at +8192;
  // 128-byte swizzle), each consumer warpgroup's epilogue staging (8192 floats) from byte 147456, then the
  // mbarriers from byte 212992: the stages' "full" and "empty", one per consumer warpgroup for its epilogue,
  // one per consumer for its turn at the main loop
  unsigned long long* full = reinterpret_cast<unsigned long long*>(smem + 212992);
  unsigned long long* empty = full + 6;
  unsigned long long* epilogue_bar = empty + 6;
  unsigned long long* order = epilogue_bar + 2;  // consumer wg's turn at the main loop
  if (threadIdx.x == 0) {
    for (int s = 0; s < 6; ++s) {
      mbarrier_init(full + s, 1);     // the producer's arrive_expect_tx, then the bytes
      mbarrier_init(empty + s, 128);  // every thread of the stage's consumer, once its wgmma retired
    }
    for (int wg = 0; wg < 2; ++wg) mbarrier_init(epilogue_bar + wg, 128);  // the warpgroup's threads
    for (int wg = 0; wg < 2; ++wg) mbarrier_init(order + wg, 128);  // the other consumer's threads
    fence_mbarrier_init();
  }
  __syncthreads();
  // output tiles of 64 x 128: 5 x 2, each block's from blockIdx.x by gridDim.x, in groups of 8 tile
  // rows (pf::grouped_tile_at); `it` counts k-blocks over the tiles, so the ring's stage it % 6 and
  // mbarrier parity (it / 6) & 1 carry from one tile to the next
  if (warpgroup_index() == 0) {
    // the producer warpgroup: its registers to the consumers, then one thread loads every k-block
    // of the block's tiles by TMA (PTX ISA 9.7.9.27) into the ring, stage it % 6, completing on
    // full[it % 6], once the consumers released the stage's previous fill on empty[it % 6]
    setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      int it = 0;  // k-blocks loaded so far, over the tiles
#pragma unroll 1
      for (int tile = blockIdx.x; tile < 10; tile += gridDim.x) {
        const pf::Tile c = pf::grouped_tile_at(tile, 2, 5, 8);
        const int m0 = c.row * 64, n0 = c.col * 128;
#pragma unroll 1
        for (int kb = 0; kb < 3; ++kb, ++it) {
          const int s = it % 6;
          if (it >= 6) mbarrier_wait(empty + s, static_cast<unsigned>(it / 6 - 1) & 1u);
          unsigned char* stage = smem + s * 24576;
          mbarrier_arrive_expect_tx(full + s, 24576);
          tma_load_tile(stage, A_map, kb * 64, m0, 64, 1, Swizzle::b128, full + s);
          tma_load_tile(stage + 8192, B_map, n0, kb * 64, 64, 2, Swizzle::b128, full + s);
        }
      }
    }
    return;
  }
  // the consumer warpgroups: registers from the producer, then per tile: wait for each k-block's
  // stage, wgmma (PTX ISA 9.7.15) from it, release the previous one; the epilogue
  setmaxnreg_inc<232>();
  const int wg = warpgroup_index() - 1;  // the block's tiles wg, wg + 2, ... (ping-pong)
  float* staging = reinterpret_cast<float*>(smem + 147456) + wg * 8192;  // the warpgroup's epilogue staging
  WarpgroupBarrier epilogue_sync{epilogue_bar + wg};
  int it = wg * 3;  // k-blocks of the block's walk so far: the other consumer's tiles count too
  int turn = 0;  // this consumer's tiles so far
#pragma unroll 1
  for (int tile = blockIdx.x + wg * gridDim.x; tile < 10; tile += 2 * gridDim.x) {
    const pf::Tile c = pf::grouped_tile_at(tile, 2, 5, 8);
    const int m0 = c.row * 64, n0 = c.col * 128;
    WgAcc<128> acc;  // f32 accumulators of C: the warpgroup's 64 x 128 tile
    // its turn: the other consumer's main loop of the block's previous tile is done (its order phase
    // turn - 1 + wg), so every earlier fill of the ring was observed and the parities below are this tile's
    if (turn - 1 + wg >= 0) mbarrier_wait(order + wg, static_cast<unsigned>(turn - 1 + wg) & 1u);
#pragma unroll 1
    for (int kb = 0; kb < 3; ++kb, ++it) {
      const int s = it % 6;
      mbarrier_wait(full + s, static_cast<unsigned>(it / 6) & 1u);
      const unsigned stage = shared_window_address(smem + s * 24576);
      wgmma_k_block<__half, 128, Major::k, Major::mn, Swizzle::b128, Swizzle::b128>(acc, OperandTile{stage, 64, 64, 0},
          OperandTile{stage + 8192, 128, 64, 0}, 4, kb > 0);
      wgmma_wait<1>();  // k-block kb - 1's wgmma retired: its stage may be refilled
      if (kb > 0) mbarrier_arrive(empty + (it - 1) % 6);
    }
    wgmma_wait<0>();
    mbarrier_arrive(empty + (it - 1) % 6);  // the tile's last k-block retired
    wgmma_fence_operand(acc);
    mbarrier_arrive(order + (1 - wg));  // the other consumer's turn at the main loop
    // the accumulators staged in the warpgroup's shared memory, then the epilogue on its 64 x 128 tile;
    // rows and columns outside 300 x 256 are not read or written
    stage_wg_acc(acc, staging, epilogue_sync);
    // in chunks of 8 columns: thread t takes columns 8 (t % 16) .. + 7 of rows t / 16, t / 16 + 8, ...
    {
      const int chunk = thread_in_warpgroup() % 16, n_first = n0 + 8 * chunk;
      const int count = pf::imax(0, pf::imin(8, 256 - n_first));  // columns of the chunk inside C
      const int rows = count > 0 ? pf::imin(64, 300 - m0) : 0;  // rows of the tile inside C
      float bias_c[8];  // bias(n), once per tile
      pf::ldg_chunk(bias + (count > 0 ? n_first : 0), bias_c, count);
      for (int r = thread_in_warpgroup() / 16; r < rows; r += 8) {
        const int pf_m = m0 + r;
        float C_v[8];
        pf::lds_chunk(staging + wg_staged_offset(128, r, 8 * chunk), C_v);
        float D_v[8];  // D(m, n) = relu(C(m, n) + bias(n))
        #pragma unroll
        for (int j = 0; j < 8; ++j) D_v[j] = pf::op::relu((C_v[j] + bias_c[j]));
        pf::stg_chunk(D + static_cast<long long>(pf_m) * 256 + n_first, D_v, count);
      }
    }
    it += 3;  // the other consumer's tile
    ++turn;
  }
}
