// polyfuse device helpers, Hopper warpgroup-tile layer: a k-block of wgmma on canonical
// shared-memory tiles (pf_swizzle_sm90.cuh, filled by TMA or by ordinary stores), the A
// register fragment of the register form, and the accumulator store.
//
//   wgmma_k_block<T, N, MA, MB, SA, SB>(acc, a, b, k_steps, accumulate)
//       fence, k_steps mma_async (k-steps 0 .. k_steps-1 of the operand tiles a and b), commit;
//       the caller retires the group with wgmma_wait<N>() before touching acc.
//   wgmma_k_block_fp8<FA, FB, N, SA, SB>(acc, a, b, k_steps, accumulate)
//       the same with m64nNk32 FP8 wgmma (FA x FB) from K-major tiles of FP8 codes, whose
//       OperandTile counts k in 16-bit units (k_extent = row bytes / 2): a k32 step of FP8 spans
//       the 32 bytes of a row that a k16 step of 16-bit elements does, so the descriptors of
//       k-step kk are the 16-bit tile's.
//   wgmma_k_block_tf32<N, SA, SB>(acc, a, b, k_steps, accumulate)
//       the same with m64nNk8 TF32 wgmma from K-major tiles of f32 values, k counted in 16-bit
//       units as well (k_extent = row bytes / 2): a k8 step of 4-byte elements spans 32 bytes.
//   wgmma_rs_k_block<T, N, MB, SB, K>(acc, a, b)
//       fence, K register-form mma_async (A fragment a[kk] times k-step kk of the operand tile b,
//       accumulating), commit; the fragments and acc stay untouched until the wait.
//   load_wg_frag_a<MA, SA>(frag, a, kk)
//       the A fragment of k-step kk from a canonical tile (ldmatrix.x4, .trans for M-major).
//   store_wg_acc<OutT>(acc, out, ldo, m_valid, n_valid)
//       the 64 x N accumulators to row-major global memory (out at the tile's (0, 0); rows
//       >= m_valid and columns >= n_valid not written), pairs of adjacent columns per access.
//   stage_wg_acc(acc, staging[, sync])
//       a barrier, the warpgroup's 64 x N accumulators as f32 at staging[wg_staged_offset(N, row,
//       col)] (64-bit stores, swizzled 16-byte chunks), a barrier (for epilogues that read them back). The barrier is `sync()`: by default
//       BlockSync (__syncthreads: every thread of the block calls the helper), or a
//       WarpgroupBarrier (pf_warpgroup_barrier.cuh) when only the warpgroup does.
//   lds_staged<V>(staging, n, row, col, out)
//       V (1, 2, 4 or 8) consecutive staged floats of a row from column col (a multiple of V):
//       128-bit loads of the staging's 16-byte chunks for V >= 4 (a fused row chain's reads).
//   store_wg_acc_staged<WIDE>(acc, staging, out, ldo, m_valid, n_valid[, sync])
//       the same through shared memory (64 x N floats at `staging`; every thread of the
//       warpgroup has retired its wgmma): a barrier (the staging may overlay what the last wgmma
//       read, or what the previous tile's stores still read), f32 stores of the accumulators, a barrier, then each row converted
//       to OutT by consecutive threads: element by element, or (WIDE: `out` 16-byte aligned and
//       ldo a multiple of 16 / sizeof(OutT) elements) in 16-byte chunks, each row's partial last
//       chunk element by element; what lies outside m_valid x n_valid is neither read nor stored. For 16-bit outputs: converting the accumulators in
//       registers (cvt.rn.f16.f32 reading them) makes ptxas serialise the wgmma of the main
//       loop (C7514), storing them does not.
// An operand is a canonical tile at a shared-window address with its extents and the first
// row (m or n) of the 64 x 16 / N x 16 operand inside it.
#pragma once

#include "pf_base.cuh"
#include "pf_ldmatrix.cuh"
#include "pf_memory.cuh"
#include "pf_sm90.cuh"
#include "pf_swizzle_sm90.cuh"
#include "pf_wgmma.cuh"
#include "pf_wgmma_desc.cuh"

namespace pf {
namespace sm90 {

struct OperandTile {
  unsigned address;  // shared-window address of the canonical tile (pf::sm90::shared_window_address)
  int mn_extent;     // rows of m (A) or n (B) in the tile
  int k_extent;      // k of the tile
  int mn0;           // first row of the operand in the tile
};

template <Major MAJOR, Swizzle S> PF_DEVICE unsigned long long operand_descriptor(const OperandTile& t, int kk) {
  return tile_descriptor(MAJOR, S, t.address, t.mn_extent, t.k_extent, t.mn0, kk);
}

template <class T, int N, Major MA, Major MB, Swizzle SA, Swizzle SB>
PF_DEVICE void wgmma_k_block(WgAcc<N>& acc, const OperandTile& a, const OperandTile& b, int k_steps, bool accumulate) {
  wgmma_fence_operand(acc);
  wgmma_fence();
PF_UNROLL
  for (int kk = 0; kk < k_steps; ++kk)
    wgmma_ss<T, N, MA, MB>(acc, operand_descriptor<MA, SA>(a, kk), operand_descriptor<MB, SB>(b, kk),
                           accumulate || kk > 0);
  wgmma_commit();
  wgmma_fence_operand(acc);
}

template <Fp8 FA, Fp8 FB, int N, Swizzle SA, Swizzle SB>
PF_DEVICE void wgmma_k_block_fp8(WgAcc<N>& acc, const OperandTile& a, const OperandTile& b, int k_steps, bool accumulate) {
  wgmma_fence_operand(acc);
  wgmma_fence();
PF_UNROLL
  for (int kk = 0; kk < k_steps; ++kk)
    wgmma_ss_fp8<FA, FB, N>(acc, operand_descriptor<Major::k, SA>(a, kk), operand_descriptor<Major::k, SB>(b, kk),
                            accumulate || kk > 0);
  wgmma_commit();
  wgmma_fence_operand(acc);
}

template <int N, Swizzle SA, Swizzle SB>
PF_DEVICE void wgmma_k_block_tf32(WgAcc<N>& acc, const OperandTile& a, const OperandTile& b, int k_steps, bool accumulate) {
  wgmma_fence_operand(acc);
  wgmma_fence();
PF_UNROLL
  for (int kk = 0; kk < k_steps; ++kk)
    wgmma_ss_tf32<N>(acc, operand_descriptor<Major::k, SA>(a, kk), operand_descriptor<Major::k, SB>(b, kk), accumulate || kk > 0);
  wgmma_commit();
  wgmma_fence_operand(acc);
}

template <class T, int N, Major MB, Swizzle SB, int K>
PF_DEVICE void wgmma_rs_k_block(WgAcc<N>& acc, const WgFragA (&a)[K], const OperandTile& b) {
  wgmma_fence_operand(acc);
  wgmma_fence();
PF_UNROLL
  for (int kk = 0; kk < K; ++kk) wgmma_rs<T, N, MB>(acc, a[kk], operand_descriptor<MB, SB>(b, kk), true);
  wgmma_commit();
  wgmma_fence_operand(acc);
}

// The register-form A fragment of k-step kk: warp w of the warpgroup loads rows
// a.mn0 + 16 w .. + 15 as four 8 x 8 matrices (rows +0/+8, k +0/+8), lane 8q + r addressing
// row r of matrix q; every 8-element row piece is one 16-byte chunk of the swizzled tile.
template <Major MA, Swizzle SA> PF_DEVICE void load_wg_frag_a(WgFragA& frag, const void* smem_tile, const OperandTile& a,
                                                              int kk) {
  const int lane = static_cast<int>(lane_id()), q = lane >> 3, r = lane & 7;
  const int row0 = a.mn0 + 16 * static_cast<int>(warp_in_warpgroup()) + 8 * (q & 1);
  const int k0 = 16 * kk + 8 * (q >> 1);
  const unsigned char* base = static_cast<const unsigned char*>(smem_tile);
  unsigned(&regs)[4] = *reinterpret_cast<unsigned(*)[4]>(frag.x.raw());
  if constexpr (MA == Major::k) {
    ldmatrix_x4<false>(regs, base + tile_offset(MA, SA, a.mn_extent, a.k_extent, row0 + r, k0));
  } else {
    ldmatrix_x4<true>(regs, base + tile_offset(MA, SA, a.mn_extent, a.k_extent, row0, k0 + r));
  }
}

template <class OutT, int N>
PF_DEVICE void store_wg_acc(WgAcc<N>& acc, OutT* out, long long ldo, int m_valid, int n_valid) {
  const unsigned t = thread_in_warpgroup();
PF_UNROLL
  for (int i = 0; i < N / 2; i += 2) {
    int row, col;
    WgAcc<N>::wg_coord(t, i, row, col);
    OutT* p = out + row * ldo + col;
    const bool row_ok = row < m_valid;
    stg_pred(p, from_float<OutT>(acc.v[i]), row_ok && col < n_valid);
    stg_pred(p + 1, from_float<OutT>(acc.v[i + 1]), row_ok && col + 1 < n_valid);
  }
}

namespace detail {
// The E = 16 / sizeof(OutT) staged floats at `src` (16-byte aligned) as one 16-byte chunk of OutT.
// For 16-bit OutT (two 16-byte halves, consecutive lanes' chunks 32 bytes apart) lanes 4..7 of
// each quarter warp read their second half first, so that a quarter's loads hit each bank once
// (pf::lds_chunk does the same).
template <class OutT> PF_DEVICE Chunk16 staged_chunk(const float* src) {
  if constexpr (sizeof(OutT) == 4) {
    return lds128(src);
  } else {
    const bool second_first = (lane_id() >> 2) & 1u;
    const Chunk16 first = lds128(src + (second_first ? 4 : 0));
    const Chunk16 second = lds128(src + (second_first ? 0 : 4));
    Chunk16 lo, hi;
PF_UNROLL
    for (int i = 0; i < 4; ++i) {
      lo.x[i] = second_first ? second.x[i] : first.x[i];
      hi.x[i] = second_first ? first.x[i] : second.x[i];
    }
    Chunk16 c;
PF_UNROLL
    for (int i = 0; i < 2; ++i) {
      c.x[i] = pack2<OutT>(__uint_as_float(lo.x[2 * i]), __uint_as_float(lo.x[2 * i + 1]));
      c.x[2 + i] = pack2<OutT>(__uint_as_float(hi.x[2 * i]), __uint_as_float(hi.x[2 * i + 1]));
    }
    return c;
  }
}
}  // namespace detail

// The staging of a 64 x n accumulator tile (n a multiple of 32): rows n floats apart, the
// 16-byte chunks of row r swizzled by 2 (r & 3) (chunk c at c ^ 2 (r & 3)). A quarter of the
// 64-bit accumulator stores (16 lanes: 4 rows, two chunks each, the same two) then hits every
// bank once, and so do the 16-byte reads of 8 lanes in one row (pf::lds_chunk, staged_chunk)
// and the 4-byte reads of a warp along a row; a chunk pair 2c, 2c + 1 stays adjacent.
PF_DEVICE constexpr int wg_staged_offset(int n, int row, int col) {
  return row * n + ((((col >> 2) ^ ((row & 3) << 1))) << 2) + (col & 3);
}

// The barrier of the epilogue helpers when every thread of the block runs them.
struct BlockSync {
  PF_DEVICE void operator()() const { __syncthreads(); }
};

template <int N, class Sync = BlockSync> PF_DEVICE void stage_wg_acc(WgAcc<N>& acc, float* staging, Sync&& sync = Sync()) {
  static_assert(N % 32 == 0, "whole swizzled rows");
  const int t = static_cast<int>(thread_in_warpgroup());
  // The staging may overlay tiles the last wgmma read: a thread's wgmma.wait_group retires its
  // own warp's share of the warpgroup's wgmma only, so every warp must have waited first.
  sync();
PF_UNROLL
  for (int i = 0; i < N / 2; i += 2) {  // accumulators i, i + 1: columns col, col + 1 of a row
    int row, col;
    WgAcc<N>::wg_coord(static_cast<unsigned>(t), i, row, col);
    sts64(staging + wg_staged_offset(N, row, col), __float_as_uint(acc.v[i]), __float_as_uint(acc.v[i + 1]));
  }
  sync();
}

template <int V> PF_DEVICE void lds_staged(const float* staging, int n, int row, int col, float* out) {
  static_assert(V == 1 || V == 2 || V == 4 || V == 8, "1, 2, 4 or 8 floats");
  if constexpr (V >= 4) {
PF_UNROLL
    for (int c = 0; c < V / 4; ++c) {
      const Chunk16 chunk = lds128(staging + wg_staged_offset(n, row, col + 4 * c));
PF_UNROLL
      for (int i = 0; i < 4; ++i) out[4 * c + i] = __uint_as_float(chunk.x[i]);
    }
  } else {
PF_UNROLL
    for (int v = 0; v < V; ++v) out[v] = lds(staging + wg_staged_offset(n, row, col + v));
  }
}

template <bool WIDE = false, class OutT, int N, class Sync = BlockSync>
PF_DEVICE void store_wg_acc_staged(WgAcc<N>& acc, float* staging, OutT* out, long long ldo, int m_valid, int n_valid,
                                   Sync&& sync = Sync()) {
  const int t = static_cast<int>(thread_in_warpgroup());
  stage_wg_acc(acc, staging, sync);
  if constexpr (WIDE) {  // 16-byte chunks of E elements; element stores past n_valid only
    constexpr int E = 16 / static_cast<int>(sizeof(OutT)), chunks = N / E;
    static_assert(N % E == 0, "whole chunks per row");
    for (int q = t; q < 64 * chunks; q += 128) {
      const int row = q / chunks, col = q % chunks * E;
      const float* src = staging + wg_staged_offset(N, row, col);
      if (row >= m_valid || col >= n_valid) continue;  // nothing of the chunk to store: nothing read
      if (col + E <= n_valid) {
        stg128(out + row * ldo + col, detail::staged_chunk<OutT>(src));
      } else {
        for (int e = 0; e < n_valid - col; ++e) stg(out + row * ldo + col + e, from_float<OutT>(lds(src + e)));
      }
    }
  } else {
    for (int e = t; e < 64 * N; e += 128) {
      const int row = e / N, col = e % N;
      if (row < m_valid && col < n_valid) stg(out + row * ldo + col, from_float<OutT>(lds(staging + wg_staged_offset(N, row, col))));
    }
  }
}

}  // namespace sm90
}  // namespace pf
