// A planted bug for the sm_90a static check (check_nvcc_sm90a.cmake, ctest
// kernels_cuda_hopper_nvcc_catches_serialised_wgmma): an accumulator register is written while
// the wgmma that writes it is in flight, so ptxas serialises the wgmma pipeline (C7511) and
// injects a warpgroup.wait (C7517). The check must report it; never compiled into a test binary.
#include "polyfuse_cuda.cuh"

extern "C" __global__ void __launch_bounds__(128, 1)
    planted_wgmma_serialised(float* out, unsigned long long desc_a, unsigned long long desc_b, int k_steps) {
  using namespace pf::sm90;
  WgAcc<64> acc;
  for (int i = 0; i < 32; ++i) acc.v.r[i] = 0.f;
  for (int kk = 0; kk < k_steps; ++kk) {
    wgmma_fence();
    wgmma_ss<__half, 64, Major::k, Major::k>(acc, desc_a, desc_b, true);
    wgmma_commit();
    acc.v.r[0] += 1.0f;  // planted: written in flight
    wgmma_wait<0>();
  }
  for (int i = 0; i < 32; ++i) out[threadIdx.x * 32 + i] = acc.v.r[i];
}
