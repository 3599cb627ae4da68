// Test kernels of the Hopper helpers (kernels/cuda pf::sm90): valid CUDA for sm_90a (compiled
// by nvcc and NVRTC in the static checks, run on a GPU by tests/gpu) and emulator C++
// (hopper_kernels_host.cc, run against scalar references by hopper_*_emu_test.cc).
//
//   hopper_wgmma_ss_*   one warpgroup: A (64 x 64) and B (N x 64) copied into canonical tiles
//                       by ordinary stores (fence.proxy.async), then 1 or 4 k-steps of wgmma
//                       from shared memory; swizzles given at launch, both majors of A and B
//   hopper_wgmma_rs_*   the same with A's fragments loaded into registers (load_wg_frag_a)
//   hopper_wgmma_fp8_*  FP8 A (64 x 128 bytes) and B (N x 128), K-major tiles written as the
//                       16-bit probes' (a k32 step of FP8 spans a k16 step's 32 bytes of a row),
//                       then 1 or 4 k-steps of wgmma_ss_fp8 (e4m3/e5m2 in each operand)
//   hopper_tma_load_*   one TMA box into shared memory through an mbarrier, copied out raw
//   hopper_tma_store_2d a raw box from global memory to shared memory, then a TMA store
//   hopper_thread_load_tile_v{1,2,4,8}  thread_load_tile: TMA's canonical tile written by
//                       threads in groups of V elements, copied out raw
//   hopper_mbarrier_phases  the phase/parity answers of try_wait and test_wait over 3 phases
//   hopper_gemm_*       C = A * B (f32 out): TMA fills an S-stage ring of swizzled stages that
//                       complete on "full" mbarriers; the warpgroup issues wgmma from them and
//                       releases each stage on its "empty" mbarrier once wgmma.wait_group
//                       retired its reads; thread 0 is the producer. Any M, N, K >= 1 whose
//                       leading dimensions are multiples of 8 elements (TMA's 16-byte strides;
//                       the maps' extents are M, N, K): boxes past the edges are zero-filled,
//                       the store is masked.
#include "polyfuse_cuda.cuh"

namespace pfh {
using namespace pf::sm90;

constexpr int kMaxK = 64;  // the wrapper probes' K extent (4 k-steps)

template <Swizzle S> struct SwizzleTag {};

// Copies a (rows x kMaxK, [row][k]) into a canonical tile by ordinary stores.
template <class T>
__device__ void fill_tile(unsigned char* tile, const T* g, Major major, Swizzle s, int rows) {
  const unsigned short* src = reinterpret_cast<const unsigned short*>(g);
  for (int i = threadIdx.x; i < rows * kMaxK; i += blockDim.x)
    pf::sts(reinterpret_cast<unsigned short*>(tile + tile_offset(major, s, rows, kMaxK, i / kMaxK, i % kMaxK)),
            pf::ldg(src + i));
}

// B's tile follows A's (64 x kMaxK: 8 KiB in every mode) at a multiple of 1024 bytes.
__device__ constexpr unsigned b_tile_offset() { return (tile_bytes(Major::k, Swizzle::b128, 64, kMaxK) + 1023u) & ~1023u; }

// A (64 x kMaxK) and B (N x kMaxK) into their canonical tiles by ordinary stores, made visible
// to the async proxy (fence.proxy.async, then the barrier); returns B's tile.
template <class T, int N, Major MA, Major MB>
__device__ unsigned char* fill_operands(unsigned char* smem, const T* a, const T* b, Swizzle sa, Swizzle sb) {
  unsigned char* b_tile = smem + b_tile_offset();
  fill_tile(smem, a, MA, sa, 64);
  fill_tile(b_tile, b, MB, sb, N);
  fence_proxy_async();
  __syncthreads();
  return b_tile;
}

// The descriptors of k-steps 0..3 of a canonical tile of `rows` x kMaxK at window address
// `base`. The probes compute them before the wgmma.fence and issue straight-line code of 1 or 4
// k-steps: registers a wgmma reads that are defined after the fence, or a wgmma under a
// runtime condition, make ptxas inject warpgroup.arrive (C7519), which the static check refuses.
struct Descriptors {
  unsigned long long k_step[4];
};
__device__ Descriptors tile_descriptors(Major major, Swizzle s, unsigned base, int rows) {
  Descriptors d;
PF_UNROLL
  for (int kk = 0; kk < 4; ++kk) d.k_step[kk] = tile_descriptor(major, s, base, rows, kMaxK, 0, kk);
  return d;
}

// STEPS wgmma (fence, mma_async, commit, wait): A from shared memory (SS) or from the
// fragments (RS, when `frag` is not null).
template <class T, int N, Major MA, Major MB, int STEPS>
__device__ void k_steps_of(WgAcc<N>& acc, const Descriptors& a, const Descriptors& b, const WgFragA* frag) {
  wgmma_fence();
PF_UNROLL
  for (int kk = 0; kk < STEPS; ++kk) {
    if (frag) pf::sm90::wgmma_rs<T, N, MB>(acc, frag[kk], b.k_step[kk], kk > 0);
    else pf::sm90::wgmma_ss<T, N, MA, MB>(acc, a.k_step[kk], b.k_step[kk], kk > 0);
  }
  wgmma_commit();
  wgmma_wait<0>();
}

template <Major MA, Swizzle S>
__device__ void load_fragments(WgFragA (&frag)[4], const unsigned char* smem) {
  const OperandTile tile{shared_window_address(smem), 64, kMaxK, 0};
PF_UNROLL
  for (int kk = 0; kk < 4; ++kk) load_wg_frag_a<MA, S>(frag[kk], smem, tile, kk);
}

// a: 64 x 64 [m][k]; b: N x 64 [n][k]; d: 64 x N; the first k_steps (1 or 4) k-steps are
// multiplied, A from shared memory (REGISTERS = false) or from registers: the fragments of all
// 4 k-steps are then loaded from A's tile first (load_wg_frag_a).
template <class T, int N, Major MA, Major MB, bool REGISTERS>
__device__ void wgmma_probe(const T* a, const T* b, float* d, int k_steps, int swizzle_a, int swizzle_b) {
  PF_DYNAMIC_SHARED_SM90(smem);
  const Swizzle sa = static_cast<Swizzle>(swizzle_a), sb = static_cast<Swizzle>(swizzle_b);
  unsigned char* b_tile = fill_operands<T, N, MA, MB>(smem, a, b, sa, sb);
  WgFragA frag[4];
  if (REGISTERS) {
    switch (sa) {
      case Swizzle::none: load_fragments<MA, Swizzle::none>(frag, smem); break;
      case Swizzle::b32: load_fragments<MA, Swizzle::b32>(frag, smem); break;
      case Swizzle::b64: load_fragments<MA, Swizzle::b64>(frag, smem); break;
      default: load_fragments<MA, Swizzle::b128>(frag, smem); break;
    }
  }
  const Descriptors da = tile_descriptors(MA, sa, shared_window_address(smem), 64);
  const Descriptors db = tile_descriptors(MB, sb, shared_window_address(b_tile), N);
  WgAcc<N> acc;
  if (k_steps == 1) k_steps_of<T, N, MA, MB, 1>(acc, da, db, REGISTERS ? frag : nullptr);
  else k_steps_of<T, N, MA, MB, 4>(acc, da, db, REGISTERS ? frag : nullptr);
  store_wg_acc(acc, d, N, 64, N);
}

// The FP8 probe: A (64 x 2 kMaxK bytes, [m][k]) and B (N x 2 kMaxK bytes, [n][k]) copied by
// 16-bit units into K-major tiles; STEPS k32 steps of FP8 wgmma from the 16-bit tiles' descriptors.
template <Fp8 FA, Fp8 FB, int N, int STEPS>
__device__ void fp8_k_steps_of(WgAcc<N>& acc, const Descriptors& a, const Descriptors& b) {
  wgmma_fence();
PF_UNROLL
  for (int kk = 0; kk < STEPS; ++kk) wgmma_ss_fp8<FA, FB, N>(acc, a.k_step[kk], b.k_step[kk], kk > 0);
  wgmma_commit();
  wgmma_wait<0>();
}

template <Fp8 FA, Fp8 FB, int N>
__device__ void wgmma_fp8_probe(const unsigned short* a, const unsigned short* b, float* d, int k_steps, int swizzle_a,
                                int swizzle_b) {
  PF_DYNAMIC_SHARED_SM90(smem);
  const Swizzle sa = static_cast<Swizzle>(swizzle_a), sb = static_cast<Swizzle>(swizzle_b);
  unsigned char* b_tile = fill_operands<unsigned short, N, Major::k, Major::k>(smem, a, b, sa, sb);
  const Descriptors da = tile_descriptors(Major::k, sa, shared_window_address(smem), 64);
  const Descriptors db = tile_descriptors(Major::k, sb, shared_window_address(b_tile), N);
  WgAcc<N> acc;
  if (k_steps == 1) fp8_k_steps_of<FA, FB, N, 1>(acc, da, db);
  else fp8_k_steps_of<FA, FB, N, 4>(acc, da, db);
  store_wg_acc(acc, d, N, 64, N);
}

// One box through an mbarrier into shared memory (box at offset 1024, the barrier at 0), then
// copied out raw (box_bytes, a multiple of 16).
template <int RANK> __device__ void tma_load(const TensorMap& map, int c0, int c1, int c2, unsigned char* out, int box_bytes) {
  PF_DYNAMIC_SHARED_SM90(smem);
  unsigned long long* bar = reinterpret_cast<unsigned long long*>(smem);
  unsigned char* box = smem + 1024;
  if (threadIdx.x == 0) {
    mbarrier_init(bar, 1);
    fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbarrier_arrive_expect_tx(bar, static_cast<unsigned>(box_bytes));
    if (RANK == 2) tma_load_2d(box, map, c0, c1, bar);
    else tma_load_3d(box, map, c0, c1, c2, bar);
  }
  mbarrier_wait(bar, 0);
  for (int i = threadIdx.x; i < box_bytes / 16; i += blockDim.x) pf::stg128(out + 16 * i, pf::lds128(box + 16 * i));
}

// thread_load_tile<V> (pf_thread_tile_sm90.cuh): the canonical tile of `atoms` boxes of
// {W/2, rows} at (inner0, outer0) of the row-major matrix src (extent_outer x extent_inner),
// written by the block's threads, then copied out raw (tile at offset 0).
// PROLOGUE: each element inside the matrix stored as x + 1 (f16), the outside still zero.
template <int V, bool PROLOGUE = false>
__device__ void thread_load(const unsigned short* src, int extent_inner, int extent_outer, int inner0, int outer0,
                            int rows, int atoms, int swizzle, unsigned char* out) {
  PF_DYNAMIC_SHARED_SM90(smem);
  const Swizzle s = static_cast<Swizzle>(swizzle);
  const __half* h = reinterpret_cast<const __half*>(src);
  if (PROLOGUE)
    thread_load_tile<V>(smem, h, extent_inner, extent_outer, inner0, outer0, rows, atoms, s, threadIdx.x, blockDim.x,
                        [](float x) { return x + 1.f; });
  else
    thread_load_tile<V>(smem, h, extent_inner, extent_outer, inner0, outer0, rows, atoms, s, threadIdx.x, blockDim.x);
  __syncthreads();
  const int bytes = atoms * rows * row_bytes(s);
  for (int i = threadIdx.x; i < bytes / 16; i += blockDim.x) pf::stg128(out + 16 * i, pf::lds128(smem + 16 * i));
}

// A raw box (box_bytes) from global memory into shared memory, then stored by TMA at (c0, c1).
__device__ void tma_store(const TensorMap& map, int c0, int c1, const unsigned char* in, int box_bytes) {
  PF_DYNAMIC_SHARED_SM90(smem);
  for (int i = threadIdx.x; i < box_bytes / 16; i += blockDim.x) pf::sts128(smem + 16 * i, pf::ldg128(in + 16 * i));
  fence_proxy_async();
  __syncthreads();
  if (threadIdx.x == 0) {
    tma_store_2d(map, c0, c1, smem);
    bulk_commit();
    bulk_wait_read<0>();
  }
}

// out[thread][step]: for phases 0..2 of a barrier all threads arrive on, test_wait(p) before
// the thread's arrival, then after try_wait(p): test_wait(p) and test_wait(p ^ 1); first of all
// test_wait(1) (the phase before the first counts as completed).
__device__ void mbarrier_phases(int* out) {
  PF_DYNAMIC_SHARED_SM90(smem);
  unsigned long long* bar = reinterpret_cast<unsigned long long*>(smem);
  if (threadIdx.x == 0) {
    mbarrier_init(bar, blockDim.x);
    fence_mbarrier_init();
  }
  __syncthreads();
  int* mine = out + threadIdx.x * 10;
  pf::stg(mine, mbarrier_test_wait(bar, 1) ? 1 : 0);
  for (unsigned p = 0; p < 3; ++p) {
    pf::stg(mine + 1 + 3 * p, mbarrier_test_wait(bar, p & 1) ? 1 : 0);
    __syncthreads();  // every thread tested before anyone arrives
    mbarrier_arrive(bar);
    mbarrier_wait(bar, p & 1);
    pf::stg(mine + 2 + 3 * p, mbarrier_test_wait(bar, p & 1) ? 1 : 0);
    pf::stg(mine + 3 + 3 * p, mbarrier_test_wait(bar, (p + 1) & 1) ? 1 : 0);
    __syncthreads();  // every thread looked before the next phase begins
  }
}

// ---- the pipelined GEMM ----------------------------------------------------------------------
template <class T, int BN, Major MB, Swizzle S, int STAGES> struct Gemm {
  static constexpr int BM = 64, BK = 64;
  static constexpr unsigned a_bytes = tile_bytes(Major::k, S, BM, BK);
  static constexpr unsigned b_bytes = tile_bytes(MB, S, BN, BK);
  static constexpr unsigned stage_bytes = (a_bytes + b_bytes + 1023u) & ~1023u;
  static constexpr unsigned barrier_offset = STAGES * stage_bytes;
  static constexpr unsigned shared_bytes = barrier_offset + 16 * STAGES;
  static constexpr int a_atoms = BK / box_inner(S);
  static constexpr int b_atoms = MB == Major::k ? BK / box_inner(S) : BN / box_inner(S);
};

template <class T, int BN, Major MB, Swizzle S, int STAGES>
__device__ void gemm(const TensorMap& map_a, const TensorMap& map_b, float* c, int m, int n, int k) {
  using G = Gemm<T, BN, MB, S, STAGES>;
  PF_DYNAMIC_SHARED_SM90(smem);
  unsigned long long* full = reinterpret_cast<unsigned long long*>(smem + G::barrier_offset);
  unsigned long long* empty = full + STAGES;
  const int m0 = blockIdx.y * G::BM, n0 = blockIdx.x * BN, k_blocks = (k + G::BK - 1) / G::BK;
  const bool producer = threadIdx.x == 0;
  if (producer) {
    for (int s = 0; s < STAGES; ++s) {
      mbarrier_init(full + s, 1);
      mbarrier_init(empty + s, 128);
    }
    fence_mbarrier_init();
  }
  __syncthreads();
  // The producer's TMA loads of k-block kb into its stage: A rows m0.., B rows n0.. (K-major)
  // or k rows kb*BK.. (N-major), completing on full[kb % STAGES].
  const auto issue = [&](int kb) {
    const int s = kb % STAGES;
    unsigned char* a_tile = smem + s * G::stage_bytes;
    unsigned char* b_tile = a_tile + G::a_bytes;
    mbarrier_arrive_expect_tx(full + s, G::a_bytes + G::b_bytes);
    tma_load_tile(a_tile, map_a, kb * G::BK, m0, G::BM, G::a_atoms, S, full + s);
    if (MB == Major::k) tma_load_tile(b_tile, map_b, kb * G::BK, n0, BN, G::b_atoms, S, full + s);
    else tma_load_tile(b_tile, map_b, n0, kb * G::BK, G::BK, G::b_atoms, S, full + s);
  };
  if (producer)
    for (int kb = 0; kb < STAGES - 1 && kb < k_blocks; ++kb) issue(kb);
  WgAcc<BN> acc;
  for (int kb = 0; kb < k_blocks; ++kb) {
    const int s = kb % STAGES;
    mbarrier_wait(full + s, static_cast<unsigned>(kb / STAGES) & 1u);
    const unsigned a_tile = shared_window_address(smem + s * G::stage_bytes);
    wgmma_k_block<T, BN, Major::k, MB, S, S>(acc, OperandTile{a_tile, G::BM, G::BK, 0},
                                             OperandTile{a_tile + G::a_bytes, BN, G::BK, 0}, G::BK / 16, kb > 0);
    wgmma_wait<1>();  // k-block kb - 1's wgmma retired: its stage may be refilled
    if (kb > 0) mbarrier_arrive(empty + (kb - 1) % STAGES);
    const int next = kb + STAGES - 1;
    if (producer && next < k_blocks) {
      if (next >= STAGES) mbarrier_wait(empty + next % STAGES, static_cast<unsigned>(next / STAGES - 1) & 1u);
      issue(next);
    }
  }
  wgmma_wait<0>();
  wgmma_fence_operand(acc);
  store_wg_acc(acc, c + static_cast<long long>(m0) * n + n0, n, m - m0, n - n0);
}

}  // namespace pfh

extern "C" {
#define PFH_WGMMA(T, TN, N, MA, MB)                                                                         \
  __global__ void __launch_bounds__(128, 1) hopper_wgmma_ss_##TN##_n##N##_##MA##_##MB(                      \
      const T* a, const T* b, float* d, int k_steps, int sa, int sb) {                                     \
    pfh::wgmma_probe<T, N, pf::sm90::Major::MA, pf::sm90::Major::MB, false>(a, b, d, k_steps, sa, sb);              \
  }                                                                                                         \
  __global__ void __launch_bounds__(128, 1) hopper_wgmma_rs_##TN##_n##N##_##MA##_##MB(                      \
      const T* a, const T* b, float* d, int k_steps, int sa, int sb) {                                     \
    pfh::wgmma_probe<T, N, pf::sm90::Major::MA, pf::sm90::Major::MB, true>(a, b, d, k_steps, sa, sb);              \
  }
#define PFH_WGMMA_MAJORS(T, TN, N) \
  PFH_WGMMA(T, TN, N, k, k)        \
  PFH_WGMMA(T, TN, N, k, mn)       \
  PFH_WGMMA(T, TN, N, mn, k)       \
  PFH_WGMMA(T, TN, N, mn, mn)
#define PFH_WGMMA_TYPES(N)               \
  PFH_WGMMA_MAJORS(__half, f16, N)       \
  PFH_WGMMA_MAJORS(__nv_bfloat16, bf16, N)
PFH_WGMMA_TYPES(8)
PFH_WGMMA_TYPES(16)
PFH_WGMMA_TYPES(24)
PFH_WGMMA_TYPES(64)
PFH_WGMMA_TYPES(128)
PFH_WGMMA_TYPES(256)
#undef PFH_WGMMA_TYPES
#undef PFH_WGMMA_MAJORS
#undef PFH_WGMMA

#define PFH_WGMMA_FP8(FA, FB, N)                                                                              \
  __global__ void __launch_bounds__(128, 1) hopper_wgmma_fp8_##FA##_##FB##_n##N(                               \
      const unsigned short* a, const unsigned short* b, float* d, int k_steps, int swizzle_a, int swizzle_b) {  \
    pfh::wgmma_fp8_probe<pf::sm90::Fp8::FA, pf::sm90::Fp8::FB, N>(a, b, d, k_steps, swizzle_a, swizzle_b);     \
  }
PFH_WGMMA_FP8(e4m3, e4m3, 64)
PFH_WGMMA_FP8(e4m3, e5m2, 128)
PFH_WGMMA_FP8(e5m2, e4m3, 8)
PFH_WGMMA_FP8(e5m2, e5m2, 256)
#undef PFH_WGMMA_FP8

__global__ void hopper_tma_load_2d(const __grid_constant__ pf::sm90::TensorMap map, int c0, int c1, unsigned char* out,
                                   int box_bytes) {
  pfh::tma_load<2>(map, c0, c1, 0, out, box_bytes);
}
__global__ void hopper_tma_load_3d(const __grid_constant__ pf::sm90::TensorMap map, int c0, int c1, int c2,
                                   unsigned char* out, int box_bytes) {
  pfh::tma_load<3>(map, c0, c1, c2, out, box_bytes);
}
__global__ void hopper_tma_store_2d(const __grid_constant__ pf::sm90::TensorMap map, int c0, int c1,
                                    const unsigned char* in, int box_bytes) {
  pfh::tma_store(map, c0, c1, in, box_bytes);
}
__global__ void hopper_mbarrier_phases(int* out) { pfh::mbarrier_phases(out); }
#define PFH_THREAD_LOAD(V)                                                                                  \
  __global__ void hopper_thread_load_tile_v##V(const unsigned short* src, int extent_inner, int extent_outer,    \
                                               int inner0, int outer0, int rows, int atoms, int swizzle,        \
                                               unsigned char* out) {                                            \
    pfh::thread_load<V>(src, extent_inner, extent_outer, inner0, outer0, rows, atoms, swizzle, out);           \
  }
PFH_THREAD_LOAD(1)
PFH_THREAD_LOAD(2)
PFH_THREAD_LOAD(4)
PFH_THREAD_LOAD(8)
#undef PFH_THREAD_LOAD
__global__ void hopper_thread_load_tile_v2_plus1(const unsigned short* src, int extent_inner, int extent_outer, int inner0,
                                                 int outer0, int rows, int atoms, int swizzle, unsigned char* out) {
  pfh::thread_load<2, true>(src, extent_inner, extent_outer, inner0, outer0, rows, atoms, swizzle, out);
}

#define PFH_GEMM(NAME, T, BN, MB, S, STAGES)                                                                \
  __global__ void __launch_bounds__(128, 1) NAME(const __grid_constant__ pf::sm90::TensorMap map_a,         \
                                                 const __grid_constant__ pf::sm90::TensorMap map_b, float* c, \
                                                 int m, int n, int k) {                                    \
    pfh::gemm<T, BN, pf::sm90::Major::MB, pf::sm90::Swizzle::S, STAGES>(map_a, map_b, c, m, n, k);          \
  }
PFH_GEMM(hopper_gemm_f16_n128_k_b128_s3, __half, 128, k, b128, 3)
PFH_GEMM(hopper_gemm_f16_n64_mn_b128_s2, __half, 64, mn, b128, 2)
PFH_GEMM(hopper_gemm_bf16_n128_mn_b64_s4, __nv_bfloat16, 128, mn, b64, 4)
PFH_GEMM(hopper_gemm_f16_n256_k_b32_s2, __half, 256, k, b32, 2)
PFH_GEMM(hopper_gemm_bf16_n64_k_none_s3, __nv_bfloat16, 64, k, none, 3)
#undef PFH_GEMM
}
