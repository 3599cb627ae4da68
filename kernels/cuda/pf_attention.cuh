// polyfuse device helpers, warp layer: the online softmax of the attention kernel
// (codegen/attention_kernel.h; FlashAttention's scheme) on m16n8k16 accumulator fragments.
//
// A warp owns 16 rows of a tile of scores, AccTile16816<1, NT> (16 x 8*NT f32). Lane l holds,
// of each 16x8 fragment, row l/4 (c0, c1) and row l/4 + 8 (c2, c3): the four lanes of a quad
// (l/4 equal) share a row, so a row's maximum is three values' and two shuffles away.
//
//   SoftmaxRows rows;  softmax_rows_start(rows);
//   for each tile of keys:
//     scores = Q * K_tile^T (the warp's 16 rows)              // the MMAs
//     online_softmax(scores, rows, out);                      // scores -> p = exp(s - max), out rescaled
//                                                             // (softmax_tile, then rescale_rows)
//     probabilities_as_a<T, ROUNDED>(scores, p_frags, rows);  // p as A fragments; the sum grows
//     out += p_frags * V_tile                                 // the MMAs
//   softmax_rows_finish(rows);                                // rows.sum: the rows' whole sums
//
// Each tile's p uses the largest score seen so far, not the row's; when a later tile raises the
// maximum, the sum and the output so far are multiplied by exp(old - new), which makes every
// term exp(s - max of the row) in the end (the same value up to f32 rounding).
#pragma once

#include "pf_base.cuh"
#include "pf_mma_m16n8k16.cuh"
#include "pf_pointwise.cuh"
#include "pf_warp.cuh"

namespace pf {

// The two rows a lane holds: their running maximum (-inf before the first tile) and this
// lane's part of their sums (the quad's parts add up to the row's sum).
struct SoftmaxRows {
  float max[2];
  float sum[2];
};

// -infinity (NVRTC has no INFINITY).
PF_DEVICE float minus_infinity() { return __uint_as_float(0xff800000u); }

PF_DEVICE void softmax_rows_start(SoftmaxRows& rows) {
  rows.max[0] = rows.max[1] = minus_infinity();
  rows.sum[0] = rows.sum[1] = 0.f;
}

// One tile: `s` (the warp's 16 rows of scores) becomes exp(s - max) in place, where max is the
// rows' running maximum including this tile; the sums so far are multiplied by exp(old max -
// new max), the factor `scale` of each row returned for the output (rescale_rows).
// S: AccTile16816<1, n> (a warp's 16 rows), or the warpgroup's pf::sm90::WgAcc<n> (the same lane
// layout: register i of a lane is in its row (i >> 1) & 1).
template <class S> PF_DEVICE void softmax_tile(S& s, SoftmaxRows& rows, float (&scale)[2]) {
  float tile_max[2] = {minus_infinity(), minus_infinity()};
PF_UNROLL
  for (int i = 0; i < S::count; ++i) tile_max[(i >> 1) & 1] = fmaxf(tile_max[(i >> 1) & 1], s.v[i]);
PF_UNROLL
  for (int h = 0; h < 2; ++h) {
    tile_max[h] = fmaxf(tile_max[h], shfl_xor(tile_max[h], 1));
    tile_max[h] = fmaxf(tile_max[h], shfl_xor(tile_max[h], 2));
    const float old_max = rows.max[h];
    rows.max[h] = fmaxf(old_max, tile_max[h]);
    // (no scores yet: nothing to rescale; exp(-inf - -inf) would be NaN)
    scale[h] = old_max == minus_infinity() ? 0.f : op::exp(old_max - rows.max[h]);
    rows.sum[h] *= scale[h];
  }
PF_UNROLL
  for (int i = 0; i < S::count; ++i) s.v[i] = op::exp(s.v[i] - rows.max[(i >> 1) & 1]);
}

// The output accumulators `out` of the rows multiplied by their `scale`.
template <class O> PF_DEVICE void rescale_rows(O& out, const float (&scale)[2]) {
PF_UNROLL
  for (int i = 0; i < O::count; ++i) out.v[i] *= scale[(i >> 1) & 1];
}

// softmax_tile, then the output so far rescaled (rescale_rows).
template <class S, class O> PF_DEVICE void online_softmax(S& s, SoftmaxRows& rows, O& out) {
  float scale[2];
  softmax_tile(s, rows, scale);
  rescale_rows(out, scale);
}

// The probabilities `p` (16 x 8*NT, NT even) as the A fragments of the k-slices of 16 keys they
// multiply, rounded to T; their values join the rows' sums, rounded to T first when ROUNDED (the
// program stores e as T: its row sum adds the rounded values).
template <class T, bool ROUNDED, int NT>
PF_DEVICE void probabilities_as_a(const AccTile16816<1, NT>& p, FragA16x16 (&a)[NT / 2], SoftmaxRows& rows) {
PF_UNROLL
  for (int k = 0; k < NT / 2; ++k) {
    // A's registers: (row g, keys 2t..), (row g + 8, keys 2t..), (row g, keys 8 + 2t..), (row g + 8, 8 + 2t..)
    const float* left = p.frag(0, 2 * k);
    const float* right = p.frag(0, 2 * k + 1);
    a[k].x[0] = pack2<T>(left[0], left[1]);
    a[k].x[1] = pack2<T>(left[2], left[3]);
    a[k].x[2] = pack2<T>(right[0], right[1]);
    a[k].x[3] = pack2<T>(right[2], right[3]);
PF_UNROLL
    for (int r = 0; r < 4; ++r) {
      const unsigned reg = a[k].x[r];
      const float* from = r < 2 ? left : right;
      const int e = 2 * (r & 1);
      rows.sum[r & 1] += ROUNDED ? unpack<T>(reg, 0) + unpack<T>(reg, 1) : from[e] + from[e + 1];
    }
  }
}

// The rows' whole sums: the quad's parts added (every lane of the quad gets them).
PF_DEVICE void softmax_rows_finish(SoftmaxRows& rows) {
PF_UNROLL
  for (int h = 0; h < 2; ++h) {
    rows.sum[h] += shfl_xor(rows.sum[h], 1);
    rows.sum[h] += shfl_xor(rows.sum[h], 2);
  }
}

}  // namespace pf
