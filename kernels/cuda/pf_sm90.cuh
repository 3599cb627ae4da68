// polyfuse device helpers, Hopper layer 0: the architecture guards, shared-window addresses,
// warpgroups and the 1024-byte aligned dynamic shared memory of the Hopper helpers
// (pf_swizzle_sm90, pf_wgmma*, pf_mbarrier, pf_tma).
//
// Two device guards, as the PTX ISA's target notes require:
//   PF_SM90_PATH   sm_90 and newer: mbarrier expect_tx / try_wait.parity, fence.proxy.async,
//                  cp.async.bulk.tensor (TMA) — plain sm_90 features;
//   PF_SM90A_PATH  the sm_90a feature set (__CUDA_ARCH_FEAT_SM90_ALL): wgmma.
// On older targets (and sm_90 without "a" for wgmma) the wrappers are never meant to run: the
// non-template ones trap, the templates (wgmma) refuse to compile when instantiated. The
// emulator path (PF_HOST_PATH) reports every operation to kernels/cuda/host_hooks.h.
//
// Run on an H200 (2026-11-30): the GPU test (tests/gpu/gpu_hopper_test.cc) compares them with
// the emulator: wgmma bit for bit, TMA loads and stores, mbarrier phases, the pipelined GEMM.
#pragma once

#include "pf_base.cuh"
#include "pf_memory.cuh"

#if PF_DEVICE_PATH && __CUDA_ARCH__ >= 900
#define PF_SM90_PATH 1
#else
#define PF_SM90_PATH 0
#endif

#if PF_DEVICE_PATH && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define PF_SM90A_PATH 1
#else
#define PF_SM90A_PATH 0
#endif

// Dynamic shared memory for tiles that TMA writes and wgmma reads with a swizzle: the
// 128-byte swizzle repeats every 1024 bytes and is applied to shared-window address bits, so
// tiles start at multiples of 1024 (the emulator's block shared memory is 1024-byte aligned).
#if PF_HOST_PATH
#define PF_DYNAMIC_SHARED_SM90(name) unsigned char* const name = ::pf_host::dynamic_shared()
#else
#define PF_DYNAMIC_SHARED_SM90(name) extern __shared__ __align__(1024) unsigned char name[]
#endif

namespace pf {
namespace sm90 {

// The address of `p` in the shared window (what descriptors and mbarrier/TMA operands hold).
// In the emulator: the offset from the block's dynamic shared memory (aligned like a 1024-byte
// aligned window address); a pointer outside it gives an offset the emulator reports.
PF_DEVICE unsigned shared_window_address(const void* p) {
#if PF_DEVICE_PATH
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
#elif PF_HOST_PATH
  return static_cast<unsigned>(static_cast<const unsigned char*>(p) - ::pf_host::dynamic_shared());
#else
  return 0;
#endif
}

// A warpgroup is four consecutive warps whose first warp index is a multiple of 4 (PTX ISA
// 9.7.15.1 "Warpgroup"). The wgmma helpers must be called by all 128 threads of one.
PF_DEVICE unsigned warpgroup_index() { return warp_id() / 4; }
PF_DEVICE unsigned warp_in_warpgroup() { return warp_id() % 4; }
PF_DEVICE unsigned thread_in_warpgroup() { return warp_in_warpgroup() * 32 + lane_id(); }

}  // namespace sm90
}  // namespace pf
