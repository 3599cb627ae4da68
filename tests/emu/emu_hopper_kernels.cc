// Planted Hopper bugs (issue 17, item 2) for the emulator's own checks: each kernel breaks one
// rule of wgmma, the async proxy, mbarrier or TMA that the hardware would not forgive, and
// otherwise does what hopper_kernels.cu does right. Launchers: emu_hopper_kernels.h.
#include "polyfuse_emu/cuda_emulation.h"
#include "polyfuse_cuda.cuh"

#include <cstring>

#include "emu_hopper_kernels.h"

namespace {
using namespace pf::sm90;

// The wgmma operands: A (64 x 16) at 0 and B (8 x 16) at kBTile, canonical K-major tiles
// without swizzle, all ones (f16), written by ordinary stores.
constexpr unsigned kBTile = 2048, kOperandBytes = kBTile + 256;

__device__ void fill_operands(unsigned char* smem, bool proxy_fence) {
  for (unsigned i = threadIdx.x; i < kOperandBytes / 2; i += blockDim.x)
    pf::sts(reinterpret_cast<unsigned short*>(smem) + i, static_cast<unsigned short>(0x3c00));
  if (proxy_fence) fence_proxy_async();
  __syncthreads();
}

__device__ unsigned long long descriptor_a(const unsigned char* smem) {
  return tile_descriptor(Major::k, Swizzle::none, shared_window_address(smem), 64, 16, 0, 0);
}
__device__ unsigned long long descriptor_b(const unsigned char* smem, unsigned offset) {
  return tile_descriptor(Major::k, Swizzle::none, shared_window_address(smem) + offset, 8, 16, 0, 0);
}

// fence, one m64n8k16 wgmma from A at 0 and B at b_offset, commit (the caller waits).
__device__ void issue_wgmma_64x8(WgAcc<8>& acc, unsigned char* smem, unsigned b_offset) {
  wgmma_fence();
  wgmma_ss<__half, 8, Major::k, Major::k>(acc, descriptor_a(smem), descriptor_b(smem, b_offset), false);
  wgmma_commit();
}

// One m64n8k16 of the calling warpgroup into out (64 x 8).
__device__ void wgmma_64x8(unsigned char* smem, float* out, unsigned b_offset) {
  WgAcc<8> acc;
  issue_wgmma_64x8(acc, smem, b_offset);
  wgmma_wait<0>();
  store_wg_acc(acc, out, 8, 64, 8);
}

// The TMA kernels: the mbarrier at shared offset 0, the box at 1024.
__device__ unsigned long long* init_barrier(unsigned char* smem, unsigned count) {
  unsigned long long* bar = reinterpret_cast<unsigned long long*>(smem);
  if (threadIdx.x == 0) {
    mbarrier_init(bar, count);
    fence_mbarrier_init();
  }
  __syncthreads();
  return bar;
}

__device__ void copy_out(const unsigned char* box, unsigned char* out, int box_bytes) {
  for (int i = threadIdx.x; i < box_bytes / 16; i += blockDim.x) pf::stg128(out + 16 * i, pf::lds128(box + 16 * i));
}

}  // namespace

extern "C" {

// Reads (write = 0) or writes (write = 1: zeroing it "for the next tile") an accumulator
// register between wgmma.mma_async and the wait_group that retires it.
__global__ void planted_wgmma_accumulator_touched(float* out, int write) {
  PF_DYNAMIC_SHARED_SM90(smem);
  fill_operands(smem, true);
  WgAcc<8> acc;
  issue_wgmma_64x8(acc, smem, kBTile);
  float early = 0.f;
  if (write) acc.v[3] = 0.f;  // planted: the wgmma is still in flight
  else early = acc.v[0];      // planted
  wgmma_wait<0>();
  store_wg_acc(acc, out, 8, 64, 8);
  if (threadIdx.x == 0) pf::stg(out, early);
}

// A wgmma, each thread's wait_group, then the operand tiles overwritten "for the next tile":
// without a barrier between (barrier = 0) warp 0 may overwrite what warps 1..3's shares of the
// wgmma still read — a thread's wait_group retires its own warp's share only.
__global__ void planted_wgmma_operands_overwritten_after_own_wait(float* out, int barrier) {
  PF_DYNAMIC_SHARED_SM90(smem);
  fill_operands(smem, true);
  WgAcc<8> acc;
  issue_wgmma_64x8(acc, smem, kBTile);
  wgmma_wait<0>();
  if (barrier) __syncthreads();  // else planted: the other warps' shares may still read B
  if (threadIdx.x < 16) pf::sts128(smem + kBTile + 16 * threadIdx.x, pf::Chunk16{{0u, 0u, 0u, 0u}});
  store_wg_acc(acc, out, 8, 64, 8);
}

// Ordinary stores to the operand tiles, then wgmma without fence.proxy.async.
__global__ void planted_wgmma_without_proxy_fence(float* out) {
  PF_DYNAMIC_SHARED_SM90(smem);
  fill_operands(smem, false);  // planted: no fence.proxy.async after the stores
  wgmma_64x8(smem, out, kBTile);
}

// B's descriptor starts `b_offset` bytes into the block's shared memory (past its end).
__global__ void planted_wgmma_descriptor_outside(float* out, unsigned b_offset) {
  PF_DYNAMIC_SHARED_SM90(smem);
  fill_operands(smem, true);
  wgmma_64x8(smem, out, b_offset);
}

// Warps 1..4 of a block of `blockDim.x` threads issue the wgmma: not a warpgroup (it must start
// at a warp index divisible by 4).
__global__ void planted_misaligned_warpgroup(float* out) {
  PF_DYNAMIC_SHARED_SM90(smem);
  fill_operands(smem, true);
  const unsigned warp = threadIdx.x / 32;
  if (warp >= 1 && warp <= 4) wgmma_64x8(smem, out, kBTile);
}

// A TMA load completing on phase 0 of the barrier, waited for with parity 1 (the phase before
// the first, complete from the start): the box is read before it lands.
// (The load is issued before the __syncthreads, so that every schedule reads the box while it
// is in flight.)
__global__ void planted_mbarrier_wrong_parity(const __grid_constant__ TensorMap map, unsigned char* out, int box_bytes) {
  PF_DYNAMIC_SHARED_SM90(smem);
  unsigned long long* bar = reinterpret_cast<unsigned long long*>(smem);
  if (threadIdx.x == 0) {
    mbarrier_init(bar, 1);
    fence_mbarrier_init();
    mbarrier_arrive_expect_tx(bar, static_cast<unsigned>(box_bytes));
    tma_load_2d(smem + 1024, map, 0, 0, bar);
  }
  __syncthreads();
  mbarrier_wait(bar, 1);  // planted: phase 0 has parity 0
  copy_out(smem + 1024, out, box_bytes);
}

// Every thread arrives once and waits for phase 0, then waits for phase 1, on which nobody
// arrives.
__global__ void planted_mbarrier_wait_for_next_phase(int* out) {
  PF_DYNAMIC_SHARED_SM90(smem);
  unsigned long long* bar = init_barrier(smem, blockDim.x);
  mbarrier_arrive(bar);
  mbarrier_wait(bar, 0);
  mbarrier_wait(bar, 1);  // planted: phase 1 never completes
  pf::stg(out + threadIdx.x, 1);
}

// expect_tx announces 16 bytes more than the TMA load delivers: the phase never completes.
__global__ void planted_tma_transaction_count_short(const __grid_constant__ TensorMap map, unsigned char* out,
                                                    int box_bytes) {
  PF_DYNAMIC_SHARED_SM90(smem);
  unsigned long long* bar = init_barrier(smem, 1);
  if (threadIdx.x == 0) {
    mbarrier_arrive_expect_tx(bar, static_cast<unsigned>(box_bytes) + 16);  // planted
    tma_load_2d(smem + 1024, map, 0, 0, bar);
  }
  mbarrier_wait(bar, 0);
  copy_out(smem + 1024, out, box_bytes);
}

// The box at shared offset 1024 of a launch with less dynamic shared memory than 1024 + the box.
__global__ void planted_tma_box_outside_shared(const __grid_constant__ TensorMap map, unsigned char* out, int box_bytes) {
  PF_DYNAMIC_SHARED_SM90(smem);
  unsigned long long* bar = init_barrier(smem, 1);
  if (threadIdx.x == 0) {
    mbarrier_arrive_expect_tx(bar, static_cast<unsigned>(box_bytes));
    tma_load_2d(smem + 1024, map, 0, 0, bar);
  }
  mbarrier_wait(bar, 0);
  copy_out(smem + 1024, out, box_bytes);
}

// A box written to shared memory by ordinary stores and stored by TMA without fence.proxy.async.
__global__ void planted_tma_store_without_proxy_fence(const __grid_constant__ TensorMap map, const unsigned char* in,
                                                      int box_bytes) {
  PF_DYNAMIC_SHARED_SM90(smem);
  for (int i = threadIdx.x; i < box_bytes / 16; i += blockDim.x) pf::sts128(smem + 16 * i, pf::ldg128(in + 16 * i));
  __syncthreads();  // planted: no fence.proxy.async before it
  if (threadIdx.x == 0) {
    tma_store_2d(map, 0, 0, smem);
    bulk_commit();
    bulk_wait_read<0>();
  }
}

}  // extern "C"

namespace emu_hopper {
namespace {
TensorMap device_map(const polyfuse::tma::TensorMapBytes& bytes) {
  TensorMap map;
  std::memcpy(&map, bytes.bytes, sizeof map);
  return map;
}
}  // namespace

polyfuse::emu::Stats launch_wgmma(WgmmaBug bug, float* out, unsigned threads) {
  const dim3 grid(1), block(threads);
  switch (bug) {
    case WgmmaBug::accumulator_read:
    case WgmmaBug::accumulator_write:
      return polyfuse::emu::launch(planted_wgmma_accumulator_touched, grid, block, kOperandBytes, out,
                                   bug == WgmmaBug::accumulator_write ? 1 : 0);
    case WgmmaBug::operands_overwritten_after_own_wait:
    case WgmmaBug::operands_overwritten_after_barrier:
      return polyfuse::emu::launch(planted_wgmma_operands_overwritten_after_own_wait, grid, block, kOperandBytes, out,
                                   bug == WgmmaBug::operands_overwritten_after_barrier ? 1 : 0);
    case WgmmaBug::no_proxy_fence: return polyfuse::emu::launch(planted_wgmma_without_proxy_fence, grid, block, kOperandBytes, out);
    case WgmmaBug::descriptor_outside:
      return polyfuse::emu::launch(planted_wgmma_descriptor_outside, grid, block, kOperandBytes, out, kOperandBytes - 128);
    case WgmmaBug::misaligned_warpgroup: return polyfuse::emu::launch(planted_misaligned_warpgroup, grid, block, kOperandBytes, out);
  }
  return {};
}

polyfuse::emu::Stats launch_tma(TmaBug bug, const polyfuse::tma::TensorMapBytes& map, unsigned char* buffer,
                                int box_bytes) {
  const dim3 grid(1), block(128);
  const std::size_t smem = 1024 + static_cast<std::size_t>(box_bytes);
  const TensorMap m = device_map(map);
  switch (bug) {
    case TmaBug::wrong_parity: return polyfuse::emu::launch(planted_mbarrier_wrong_parity, grid, block, smem, m, buffer, box_bytes);
    case TmaBug::transaction_count_short:
      return polyfuse::emu::launch(planted_tma_transaction_count_short, grid, block, smem, m, buffer, box_bytes);
    case TmaBug::box_outside_shared:
      return polyfuse::emu::launch(planted_tma_box_outside_shared, grid, block, smem - 512, m, buffer, box_bytes);
    case TmaBug::store_without_proxy_fence:
      return polyfuse::emu::launch(planted_tma_store_without_proxy_fence, grid, block, static_cast<std::size_t>(box_bytes),
                                   m, static_cast<const unsigned char*>(buffer), box_bytes);
  }
  return {};
}

polyfuse::emu::Stats launch_wait_for_next_phase(int* out, unsigned threads) {
  return polyfuse::emu::launch(planted_mbarrier_wait_for_next_phase, dim3(1), dim3(threads), 8, out);
}

}  // namespace emu_hopper
