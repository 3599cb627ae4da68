// polyfuse device helpers, Hopper instruction layer: warpgroup MMA (PTX ISA 9.7.15
// "Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions", sm_90a).
//
//   wgmma_fence()           wgmma.fence.sync.aligned
//   wgmma_ss<T, N, MA, MB>  wgmma.mma_async.sync.aligned.m64nNk16.f32.T.T  d, desc-a, desc-b, ...
//   wgmma_rs<T, N, MB>      the same with A from registers (WgFragA)
//   wgmma_ss_fp8<FA, FB, N> wgmma.mma_async.sync.aligned.m64nNk32.f32.FA.FB d, desc-a, desc-b, ...
//                           FP8 A and B (Fp8::e4m3 / e5m2 each), both K-major (the only major
//                           FP8 wgmma reads): a k32 step spans the same 32 bytes of a K-major
//                           tile row as a 16-bit k16 step, so the 16-bit tiles' descriptors serve
//   wgmma_commit()          wgmma.commit_group.sync.aligned
//   wgmma_wait<N>()         wgmma.wait_group.sync.aligned N
// T is __half or __nv_bfloat16, N a multiple of 8 in 8..256; MA / MB the storage order of A / B
// in shared memory (Major::k: imm-trans 0; Major::mn: imm-trans 1), described by the matrix
// descriptors of pf_wgmma_desc.cuh. All 128 threads of a warpgroup call each of these.
//
// Register fragments (PTX ISA 9.7.15.5.1.1 "Register Fragments"), thread t of the warpgroup,
// warp w = t / 32, lane l, groupID g = l / 4, threadID_in_group q = l % 4:
//   D (64 x N, f32), WgAcc<N>: register i (0 .. N/2-1)
//       row = 16 w + g + 8 * ((i / 2) % 2),   col = 8 * (i / 4) + 2 q + i % 2
//   A (64 x 16, .f16/.bf16), WgFragA: element i (0..7; register i / 2, low half first)
//       row = 16 w + g + 8 * ((i / 2) % 2),   col = 2 q + i % 2 + 8 * (i / 4)
//
// wgmma is asynchronous: from mma_async until the wait_group that retires it, its accumulator
// registers (and A registers) must not be read or written by other instructions; a further
// mma_async on the same accumulators may follow without waiting. wgmma.fence must come before
// the first mma_async and after ordinary code touched the registers it uses. Shared-memory
// operands written by ordinary stores need fence.proxy.async (pf_mbarrier.cuh) before it.
// The emulator checks all of this (runtime/emu: wgmma_state): ordinary code reaches the
// registers through WgmmaRegs::operator[], which reports every access.
#pragma once

#include "pf_base.cuh"
#include "pf_sm90.cuh"
#include "pf_swizzle_sm90.cuh"
#include "pf_wgmma_operands.cuh"

namespace pf {
namespace sm90 {

// Registers a wgmma reads or writes. In the emulator each access by ordinary code is reported
// (an error while a wgmma using them is in flight); on the device a plain register array.
template <class R, int COUNT> struct WgmmaRegs {
  R r[COUNT];
  PF_DEVICE R& operator[](int i) {
#if PF_HOST_PATH
    ::pf_host::wgmma_register_access(r);
#endif
    return r[i];
  }
  PF_DEVICE const R& operator[](int i) const {
#if PF_HOST_PATH
    ::pf_host::wgmma_register_access(r);
#endif
    return r[i];
  }
  // All registers at once (for instructions that write them, e.g. ldmatrix into an A fragment).
  PF_DEVICE R* raw() {
#if PF_HOST_PATH
    ::pf_host::wgmma_register_access(r);
#endif
    return r;
  }
};

// The f32 accumulators of one m64nNk16 held by one thread (layout above).
template <int N> struct WgAcc {
  static_assert(N % 8 == 0 && N >= 8 && N <= 256, "wgmma m64nNk16: N is a multiple of 8 in 8..256");
  static constexpr int rows = 64;
  static constexpr int cols = N;
  static constexpr int count = N / 2;
  WgmmaRegs<float, count> v;
  // Row and column in the 64 x N tile of register i of warpgroup thread `thread` (0..127).
  PF_DEVICE static void wg_coord(unsigned thread, int i, int& row, int& col) {
    const int w = static_cast<int>(thread / 32), l = static_cast<int>(thread % 32);
    row = 16 * w + l / 4 + 8 * ((i / 2) % 2);
    col = 8 * (i / 4) + 2 * (l % 4) + i % 2;
  }
};

// The A fragment of the register form: 8 16-bit elements in 4 registers (layout above).
struct WgFragA {
  WgmmaRegs<unsigned, 4> x;
  // Row and k of element i (0..7) of warpgroup thread `thread`.
  PF_DEVICE static void wg_coord(unsigned thread, int i, int& row, int& k) {
    const int w = static_cast<int>(thread / 32), l = static_cast<int>(thread % 32);
    row = 16 * w + l / 4 + 8 * ((i / 2) % 2);
    k = 2 * (l % 4) + i % 2 + 8 * (i / 4);
  }
};

// Compiler-only fence on the accumulators: no ordinary instruction moves across it (CuTe's
// warpgroup_fence_operand). Place it around a batch of mma_async and after wait_group.
template <int N> PF_DEVICE void wgmma_fence_operand(WgAcc<N>& d) {
#if PF_DEVICE_PATH
PF_UNROLL
  for (int i = 0; i < N / 2; ++i) asm volatile("" : "+f"(d.v.r[i])::"memory");
#endif
}

// wgmma.fence.sync.aligned: orders the warpgroup's prior register and shared-memory accesses
// before the following wgmma.mma_async (PTX ISA 9.7.15.6.1).
PF_DEVICE void wgmma_fence() {
#if PF_SM90A_PATH
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");  // wgmma needs sm_90a
#elif PF_HOST_PATH
  ::pf_host::wgmma_fence();
#endif
}

// wgmma.commit_group.sync.aligned: the thread's uncommitted mma_async become a wgmma-group.
PF_DEVICE void wgmma_commit() {
#if PF_SM90A_PATH
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");
#elif PF_HOST_PATH
  ::pf_host::wgmma_commit();
#endif
}

// wgmma.wait_group.sync.aligned N: waits until at most N wgmma-groups are pending; the
// retired groups' accumulators are then written.
template <int N> PF_DEVICE void wgmma_wait() {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes 0..7");
#if PF_SM90A_PATH
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");
#elif PF_HOST_PATH
  ::pf_host::wgmma_wait(N);
#endif
}

// The FP8 operand types of wgmma_ss_fp8.
enum class Fp8 { e4m3, e5m2 };

#if PF_SM90A_PATH
// One asm statement per N (the operand lists of pf_wgmma_operands.cuh). SS: %R desc-a,
// %R+1 desc-b, %R+2 scale-d, %R+3 imm-trans-a, %R+4 imm-trans-b. RS: %R..%R+3 A, %R+4 desc-b,
// %R+5 scale-d, %R+6 imm-trans-b. imm-scale-a and imm-scale-b are 1.
#define PF_WGMMA_SS_CASE(n_, dl, ol, r0, r1, r2, r3, r4, r5, r6, type)                                         \
  if constexpr (N == n_) {                                                                                     \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #r2 ", 0;\nwgmma.mma_async.sync.aligned.m64n" #n_       \
                 "k16.f32." type "." type " {" dl "}, %" #r0 ", %" #r1 ", p, 1, 1, %" #r3 ", %" #r4 ";\n}\n" \
                 : ol                                                                                          \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TA), "n"(TB));                                 \
  }
#define PF_WGMMA_RS_CASE(n_, dl, ol, r0, r1, r2, r3, r4, r5, r6, type)                                          \
  if constexpr (N == n_) {                                                                                      \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #r5 ", 0;\nwgmma.mma_async.sync.aligned.m64n" #n_        \
                 "k16.f32." type "." type " {" dl "}, {%" #r0 ", %" #r1 ", %" #r2 ", %" #r3 "}, %" #r4        \
                 ", p, 1, 1, %" #r6 ";\n}\n"                                                                    \
                 : ol                                                                                           \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d), "n"(TB));            \
  }
// FP8: %R desc-a, %R+1 desc-b, %R+2 scale-d; no imm-trans (FP8 operands are K-major).
#define PF_WGMMA_FP8_CASE(n_, dl, ol, r0, r1, r2, r3, r4, r5, r6, types)                                      \
  if constexpr (N == n_) {                                                                                    \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #r2 ", 0;\nwgmma.mma_async.sync.aligned.m64n" #n_      \
                 "k32.f32." types " {" dl "}, %" #r0 ", %" #r1 ", p, 1, 1;\n}\n"                             \
                 : ol                                                                                         \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));                                                   \
  }
// TF32: %R desc-a, %R+1 desc-b, %R+2 scale-d; no imm-trans (TF32 operands are K-major).
#define PF_WGMMA_TF32_CASE(n_, dl, ol, r0, r1, r2, r3, r4, r5, r6, unused)                                    \
  if constexpr (N == n_) {                                                                                    \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #r2 ", 0;\nwgmma.mma_async.sync.aligned.m64n" #n_      \
                 "k8.f32.tf32.tf32 {" dl "}, %" #r0 ", %" #r1 ", p, 1, 1;\n}\n"                            \
                 : ol                                                                                         \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));                                                   \
  }
namespace detail {
template <int N>
PF_DEVICE void wgmma_tf32_asm(float* d, unsigned long long desc_a, unsigned long long desc_b, int scale_d) {
  PF_WG_FOR_EACH_N(PF_WGMMA_TF32_CASE, "")
}
template <Fp8 FA, Fp8 FB, int N>
PF_DEVICE void wgmma_fp8_asm(float* d, unsigned long long desc_a, unsigned long long desc_b, int scale_d) {
  if constexpr (FA == Fp8::e4m3 && FB == Fp8::e4m3) {
    PF_WG_FOR_EACH_N(PF_WGMMA_FP8_CASE, "e4m3.e4m3")
  } else if constexpr (FA == Fp8::e4m3) {
    PF_WG_FOR_EACH_N(PF_WGMMA_FP8_CASE, "e4m3.e5m2")
  } else if constexpr (FB == Fp8::e4m3) {
    PF_WG_FOR_EACH_N(PF_WGMMA_FP8_CASE, "e5m2.e4m3")
  } else {
    PF_WG_FOR_EACH_N(PF_WGMMA_FP8_CASE, "e5m2.e5m2")
  }
}
template <class T, int N, int TA, int TB>
PF_DEVICE void wgmma_ss_asm(float* d, unsigned long long desc_a, unsigned long long desc_b, int scale_d) {
  if constexpr (IsSame<T, __nv_bfloat16>::value) {
    PF_WG_FOR_EACH_N(PF_WGMMA_SS_CASE, "bf16")
  } else {
    PF_WG_FOR_EACH_N(PF_WGMMA_SS_CASE, "f16")
  }
}
template <class T, int N, int TB>
PF_DEVICE void wgmma_rs_asm(float* d, const unsigned* a, unsigned long long desc_b, int scale_d) {
  if constexpr (IsSame<T, __nv_bfloat16>::value) {
    PF_WG_FOR_EACH_N(PF_WGMMA_RS_CASE, "bf16")
  } else {
    PF_WG_FOR_EACH_N(PF_WGMMA_RS_CASE, "f16")
  }
}
}  // namespace detail
#undef PF_WGMMA_SS_CASE
#undef PF_WGMMA_RS_CASE
#undef PF_WGMMA_FP8_CASE
#undef PF_WGMMA_TF32_CASE
#endif

// d (+)= A * B for one m64nNk16; A and B in shared memory through their descriptors.
// accumulate = false: d = A * B (scale-d 0).
template <class T, int N, Major MA, Major MB>
PF_DEVICE void wgmma_ss(WgAcc<N>& d, unsigned long long desc_a, unsigned long long desc_b, bool accumulate) {
  static_assert(IsSame<T, __half>::value || IsSame<T, __nv_bfloat16>::value, "wgmma: T is __half or __nv_bfloat16");
#if PF_SM90A_PATH
  detail::wgmma_ss_asm<T, N, MA == Major::mn ? 1 : 0, MB == Major::mn ? 1 : 0>(d.v.r, desc_a, desc_b, accumulate ? 1 : 0);
#elif PF_DEVICE_PATH
  static_assert(N < 0, "wgmma needs the sm_90a target (-gencode arch=compute_90a,code=sm_90a)");
#elif PF_HOST_PATH
  const ::pf_host::WgmmaOp op{static_cast<unsigned>(N), IsSame<T, __nv_bfloat16>::value ? 1u : 0u, desc_a, desc_b,
                              {0u, 0u, 0u, 0u}, 0u, MA == Major::mn ? 1u : 0u, MB == Major::mn ? 1u : 0u,
                              accumulate ? 1u : 0u, 0u, 0u, 0u};
  ::pf_host::wgmma_mma_async(op, d.v.r, nullptr);
#endif
}

// d (+)= A * B with A from registers (the register form; A is K-major by definition).
template <class T, int N, Major MB>
PF_DEVICE void wgmma_rs(WgAcc<N>& d, const WgFragA& a, unsigned long long desc_b, bool accumulate) {
  static_assert(IsSame<T, __half>::value || IsSame<T, __nv_bfloat16>::value, "wgmma: T is __half or __nv_bfloat16");
#if PF_SM90A_PATH
  detail::wgmma_rs_asm<T, N, MB == Major::mn ? 1 : 0>(d.v.r, a.x.r, desc_b, accumulate ? 1 : 0);
#elif PF_DEVICE_PATH
  static_assert(N < 0, "wgmma needs the sm_90a target (-gencode arch=compute_90a,code=sm_90a)");
#elif PF_HOST_PATH
  const ::pf_host::WgmmaOp op{static_cast<unsigned>(N), IsSame<T, __nv_bfloat16>::value ? 1u : 0u, 0ull, desc_b,
                              {a.x.r[0], a.x.r[1], a.x.r[2], a.x.r[3]}, 1u, 0u, MB == Major::mn ? 1u : 0u,
                              accumulate ? 1u : 0u, 0u, 0u, 0u};
  ::pf_host::wgmma_mma_async(op, d.v.r, a.x.r);
#endif
}

// d (+)= A * B for one m64nNk32 with FP8 A (FA) and B (FB), both K-major in shared memory
// through their descriptors; f32 accumulators. accumulate = false: d = A * B (scale-d 0).
template <Fp8 FA, Fp8 FB, int N>
PF_DEVICE void wgmma_ss_fp8(WgAcc<N>& d, unsigned long long desc_a, unsigned long long desc_b, bool accumulate) {
#if PF_SM90A_PATH
  detail::wgmma_fp8_asm<FA, FB, N>(d.v.r, desc_a, desc_b, accumulate ? 1 : 0);
#elif PF_DEVICE_PATH
  static_assert(N < 0, "wgmma needs the sm_90a target (-gencode arch=compute_90a,code=sm_90a)");
#elif PF_HOST_PATH
  const ::pf_host::WgmmaOp op{static_cast<unsigned>(N), 0u, desc_a, desc_b, {0u, 0u, 0u, 0u}, 0u, 0u, 0u,
                              accumulate ? 1u : 0u, FA == Fp8::e4m3 ? 1u : 2u, FB == Fp8::e4m3 ? 1u : 2u, 0u};
  ::pf_host::wgmma_mma_async(op, d.v.r, nullptr);
#endif
}

// d (+)= A * B for one m64nNk8 with f32 A and B read as TF32, both K-major in shared memory
// through their descriptors; f32 accumulators. accumulate = false: d = A * B (scale-d 0).
template <int N>
PF_DEVICE void wgmma_ss_tf32(WgAcc<N>& d, unsigned long long desc_a, unsigned long long desc_b, bool accumulate) {
#if PF_SM90A_PATH
  detail::wgmma_tf32_asm<N>(d.v.r, desc_a, desc_b, accumulate ? 1 : 0);
#elif PF_DEVICE_PATH
  static_assert(N < 0, "wgmma needs the sm_90a target (-gencode arch=compute_90a,code=sm_90a)");
#elif PF_HOST_PATH
  const ::pf_host::WgmmaOp op{static_cast<unsigned>(N), 0u, desc_a, desc_b, {0u, 0u, 0u, 0u}, 0u, 0u, 0u,
                              accumulate ? 1u : 0u, 0u, 0u, 1u};
  ::pf_host::wgmma_mma_async(op, d.v.r, nullptr);
#endif
}

}  // namespace sm90
}  // namespace pf
