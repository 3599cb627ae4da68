// polyfuse device helpers, Hopper warpgroup layer: the online softmax of the sm_90a attention
// kernel (codegen/attention_wgmma_kernel.h) on wgmma accumulators.
//
// A warpgroup owns 64 query rows. Per tile of keys:
//   scores = Q * K_tile^T                  wgmma_k_block (Q and K from shared memory), wait
//   online_softmax(scores, rows, out)      pf_attention.cuh: the same code as the warp's, since a
//                                          lane of a WgAcc holds rows g and g + 8 of its warp's 16
//                                          in the m16n8 order (register i in row (i >> 1) & 1)
//   probabilities_as_wg_a<T, ROUNDED>(scores, p, rows)
//                                          p = the scores as the register-form A fragments of the
//                                          k-steps of 16 keys, rounded to T; the sums grow
//   out += p * V_tile                      wgmma_rs_k_block (V from shared memory), wait
// The sums and the maxima are pf::SoftmaxRows: a lane's two rows, the quad's parts added at the
// end (softmax_rows_finish).
#pragma once

#include "pf_attention.cuh"
#include "pf_base.cuh"
#include "pf_pointwise.cuh"
#include "pf_wgmma.cuh"

namespace pf {
namespace sm90 {

// Every accumulator of `acc` set to `value` (ordinary writes: before the wgmma_fence of the
// first mma_async that reads them).
template <int N> PF_DEVICE void wg_fill(WgAcc<N>& acc, float value) {
PF_UNROLL
  for (int i = 0; i < N / 2; ++i) acc.v[i] = value;
}

// The probabilities `p` (64 x N, N a multiple of 16) as the A fragments of the k-steps of 16
// keys, rounded to T; their values join the rows' sums, rounded to T first when ROUNDED (the
// program stores e as T: its row sum adds the rounded values). Register j of fragment k holds
// the accumulators 8k + 2j and 8k + 2j + 1: A's element layout is the accumulators' (pf_wgmma.cuh).
template <class T, bool ROUNDED, int N>
PF_DEVICE void probabilities_as_wg_a(WgAcc<N>& p, WgFragA (&a)[N / 16], SoftmaxRows& rows) {
  static_assert(N % 16 == 0, "whole k-steps of 16 keys");
PF_UNROLL
  for (int k = 0; k < N / 16; ++k) {
PF_UNROLL
    for (int j = 0; j < 4; ++j) {
      const float x0 = p.v[8 * k + 2 * j], x1 = p.v[8 * k + 2 * j + 1];
      const unsigned reg = pack2<T>(x0, x1);
      a[k].x[j] = reg;
      rows.sum[j & 1] += ROUNDED ? unpack<T>(reg, 0) + unpack<T>(reg, 1) : x0 + x1;
    }
  }
}

}  // namespace sm90
}  // namespace pf
