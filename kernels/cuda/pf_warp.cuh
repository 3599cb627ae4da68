// polyfuse device helpers: warp shuffles and warp reductions. In the emulator each call
// is one rendezvous of the 32 lanes (all lanes of the warp must call it).
#pragma once

#include "pf_base.cuh"

namespace pf {

// Value of `v` held by lane `src_lane`.
PF_DEVICE float shfl(float v, int src_lane) {
#if PF_DEVICE_PATH
  return __shfl_sync(0xffffffffu, v, src_lane);
#elif PF_HOST_PATH
  const float* all = static_cast<const float*>(::pf_host::warp_exchange("shfl", &v, sizeof v));
  return all[src_lane & 31];
#else
  return v;
#endif
}

// Value of `v` held by lane (lane_id() ^ lane_mask).
PF_DEVICE float shfl_xor(float v, int lane_mask) {
#if PF_DEVICE_PATH
  return __shfl_xor_sync(0xffffffffu, v, lane_mask);
#elif PF_HOST_PATH
  const float* all = static_cast<const float*>(::pf_host::warp_exchange("shfl_xor", &v, sizeof v));
  return all[(::pf_host::lane_id() ^ static_cast<unsigned>(lane_mask)) & 31];
#else
  return v;
#endif
}

// Sum / maximum of `v` over the 32 lanes, returned to every lane (butterfly reduction;
// the emulator does it in one rendezvous, summing in the same butterfly order).
PF_DEVICE float warp_sum(float v) {
#if PF_HOST_PATH
  const float* all = static_cast<const float*>(::pf_host::warp_exchange("warp_sum", &v, sizeof v));
  const unsigned lane = ::pf_host::lane_id();
  float partial[32];
  for (int l = 0; l < 32; ++l) partial[l] = all[l];
  for (int m = 16; m >= 1; m >>= 1) {
    float next[32];
    for (int l = 0; l < 32; ++l) next[l] = partial[l] + partial[l ^ m];
    for (int l = 0; l < 32; ++l) partial[l] = next[l];
  }
  return partial[lane];
#else
  for (int m = 16; m >= 1; m >>= 1) v += shfl_xor(v, m);
  return v;
#endif
}

PF_DEVICE float warp_max(float v) {
#if PF_HOST_PATH
  const float* all = static_cast<const float*>(::pf_host::warp_exchange("warp_max", &v, sizeof v));
  float m = all[0];
  for (int l = 1; l < 32; ++l) m = all[l] > m ? all[l] : m;
  return m;
#else
  for (int m = 16; m >= 1; m >>= 1) {
    const float o = shfl_xor(v, m);
    v = o > v ? o : v;
  }
  return v;
#endif
}

}  // namespace pf
