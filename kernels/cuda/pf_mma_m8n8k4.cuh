// polyfuse device helpers: the paper's macro-MMAs (§II-A, §IV-A) built from
//   mma.sync.aligned.m8n8k4.{row,col}.{row,col}.f32.f16.f16.f32
// 16x16x8 (two instructions) and 32x32x8 (2x2 of 16x16x8), f16 in, f32 accumulate, all
// four A/B layouts; plus their fragment loads from swizzled shared tiles.
//
// PTX ISA 9.7.15.5.1 "Matrix Fragments for mma.m8n8k4 with .f16 floating point type": the
// warp is 4 quad-pairs (QP q = lanes 4q..4q+3 and 16+4q..16+4q+3), each computing its own
// 8x8x4 product from its own lanes' registers (the emulator's host model does the same,
// detail::host_mma_m8n8k4). Within a QP, idx = lane%4 + 4*(lane>=16) and hi = lane>=16:
//   A .row: a_e = A[idx][e]           A .col: a_e = A[e + 4*hi][lane%4]
//   B .row: b_e = B[lane%4][e + 4*hi] B .col: b_e = B[e][idx]
//   C f32:  c_e = C[X + 4*hi][(e & 4) + (lane & 2) + (e & 1)], X = (lane & 1) + (e & 2)
// Macro 16x16x8 (Figure 2 of the paper): QP q computes the 8x8 block (mb, nb) =
// (q & 1, q >> 1) of C; its first instruction covers k 0..3, the second k 4..7. So a lane's
// A fragment (8 halves, FragA884) is, for .row, the 8 contiguous k of row 8*mb + idx (one
// 128-bit shared load), for .col two 4-element pieces of rows 8*mb + 4*hi.. at k = lane%4
// and 4 + lane%4 (two 64-bit loads); B symmetrically. The accumulator fragment of a
// 16x16 piece is 8 f32 (c0..c7 above, offset by the block (mb, nb)).
// m8n8k4 is the Volta instruction; CUDA 13 targets sm_75+, where ptxas still accepts it
// (sm_75, sm_80, sm_90 checked by tests/kernels_cuda) but it is not the fast path.
#pragma once

#include "pf_base.cuh"
#include "pf_memory.cuh"
#include "pf_swizzle.cuh"

namespace pf {

struct FragA884 {
  unsigned x[4];  // instruction 0: x[0..1], instruction 1: x[2..3]
};
struct FragB884 {
  unsigned x[4];
};

// Accumulators of MT x NT macro 16x16 pieces: (16*MT) x (16*NT), 8 f32 per lane per piece.
template <int MT, int NT> struct AccTile884 {
  static constexpr int rows = 16 * MT;
  static constexpr int cols = 16 * NT;
  static constexpr int count = MT * NT * 8;
  static constexpr int pieces_m = MT;
  static constexpr int pieces_n = NT;
  float v[count];

  PF_DEVICE static void coord(unsigned lane, int idx, int& row, int& col) {
    const int p = idx >> 3, e = idx & 7;
    const int q = static_cast<int>((lane >> 2) & 3), hi = static_cast<int>(lane >> 4);
    const int l = static_cast<int>(lane);
    row = 16 * (p / NT) + 8 * (q & 1) + (l & 1) + (e & 2) + 4 * hi;
    col = 16 * (p % NT) + 8 * (q >> 1) + (e & 4) + (l & 2) + (e & 1);
  }
  PF_DEVICE static int piece_index(int pm, int pn, int e) { return (pm * NT + pn) * 8 + e; }
  // The 8 values this lane holds of 16x16 piece (i, j).
  PF_DEVICE float* frag(int i, int j) { return v + (i * NT + j) * 8; }
  PF_DEVICE const float* frag(int i, int j) const { return v + (i * NT + j) * 8; }
};

namespace detail {
template <Layout LA, Layout LB>
PF_DEVICE void mma_m8n8k4_instr(float* c, unsigned a0, unsigned a1, unsigned b0, unsigned b1) {
#if PF_DEVICE_PATH
#define PF_MMA884(LAYOUTS)                                                                       \
  asm volatile("mma.sync.aligned.m8n8k4." LAYOUTS                                                 \
               ".f32.f16.f16.f32 {%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9}, {%10, %11}, "        \
               "{%0, %1, %2, %3, %4, %5, %6, %7};"                                                \
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]), "+f"(c[4]), "+f"(c[5]),           \
                 "+f"(c[6]), "+f"(c[7])                                                           \
               : "r"(a0), "r"(a1), "r"(b0), "r"(b1))
  if constexpr (LA == Layout::row && LB == Layout::row) PF_MMA884("row.row");
  else if constexpr (LA == Layout::row && LB == Layout::col) PF_MMA884("row.col");
  else if constexpr (LA == Layout::col && LB == Layout::row) PF_MMA884("col.row");
  else PF_MMA884("col.col");
#undef PF_MMA884
#endif
}

#if PF_HOST_PATH
// The emulator's model of one mma.m8n8k4 instruction, as the hardware executes it: quad
// pair q (lanes 4q..4q+3 and 16+4q..16+4q+3) multiplies the 8x4 A and the 4x8 B held in
// its own lanes' registers and never sees another quad pair's. The macro-MMAs hold every A
// row and B column in two quad pairs; a fragment load that gets one copy wrong therefore
// corrupts exactly that quad pair's 8x8 block, on the GPU and here.
// `lanes`: the 32 lanes' deposits, `stride` registers each; the instruction's operand is
// registers reg0 and reg0 + 1 of each lane (a0, a1 | a2, a3 as PTX numbers them).
// Element (row 0..7, k 0..3) of quad pair q's A: .row a_i = A[lane%4 + 4*high][i],
// .col a_i = A[i + 4*high][lane%4] (high: lanes 16..31).
template <Layout LA> inline float qp_a(const unsigned* lanes, int stride, int reg0, int q, int row, int k) {
  const int high = row >> 2;
  const int lane = 4 * q + 16 * high + (LA == Layout::row ? (row & 3) : k);
  const int i = LA == Layout::row ? k : (row & 3);
  return unpack<__half>(lanes[lane * stride + reg0 + (i >> 1)], i & 1);
}
// Element (k 0..3, col 0..7) of quad pair q's B: .col b_i = B[i][lane%4 + 4*high],
// .row b_i = B[lane%4][i + 4*high].
template <Layout LB> inline float qp_b(const unsigned* lanes, int stride, int reg0, int q, int k, int col) {
  const int high = col >> 2;
  const int lane = 4 * q + 16 * high + (LB == Layout::col ? (col & 3) : k);
  const int i = LB == Layout::col ? k : (col & 3);
  return unpack<__half>(lanes[lane * stride + reg0 + (i >> 1)], i & 1);
}
// c (the calling lane's 8 f32 accumulators) += its part of its quad pair's 8x8x4 product,
// A in registers a_reg0.., B in b_reg0.. of the deposits.
template <Layout LA, Layout LB>
inline void host_mma_m8n8k4(float* c, const unsigned* lanes, int stride, int a_reg0, int b_reg0, unsigned lane) {
  const int q = static_cast<int>((lane >> 2) & 3);
  for (int e = 0; e < 8; ++e) {
    int row, col;
    AccTile884<1, 1>::coord(lane, e, row, col);  // its 8x8 block is the quad pair's own
    float sum = c[e];
    for (int k = 0; k < 4; ++k)
      sum += qp_a<LA>(lanes, stride, a_reg0, q, row & 7, k) * qp_b<LB>(lanes, stride, b_reg0, q, k, col & 7);
    c[e] = sum;
  }
}
#endif
}  // namespace detail

// Warp tile of MT x NT macro 16x16x8 MMAs: acc(i, j) += A_i * B_j (k = 8).
template <Layout LA, Layout LB, int MT, int NT>
PF_DEVICE void mma_884(AccTile884<MT, NT>& acc, const FragA884 (&a)[MT], const FragB884 (&b)[NT]) {
#if PF_DEVICE_PATH
PF_UNROLL
  for (int i = 0; i < MT; ++i)
PF_UNROLL
    for (int j = 0; j < NT; ++j) {
      float* c = acc.v + (i * NT + j) * 8;
      detail::mma_m8n8k4_instr<LA, LB>(c, a[i].x[0], a[i].x[1], b[j].x[0], b[j].x[1]);
      detail::mma_m8n8k4_instr<LA, LB>(c, a[i].x[2], a[i].x[3], b[j].x[2], b[j].x[3]);
    }
#elif PF_HOST_PATH
  constexpr int stride = 4 * (MT + NT);
  unsigned mine[stride];
  for (int i = 0; i < MT; ++i)
    for (int r = 0; r < 4; ++r) mine[4 * i + r] = a[i].x[r];
  for (int j = 0; j < NT; ++j)
    for (int r = 0; r < 4; ++r) mine[4 * MT + 4 * j + r] = b[j].x[r];
  const unsigned* all =
      static_cast<const unsigned*>(::pf_host::warp_exchange("mma.m8n8k4", mine, sizeof mine));
  const unsigned lane = ::pf_host::lane_id();
  // The two instructions of each macro-MMA, as on the device: registers 0, 1 then 2, 3.
  for (int i = 0; i < MT; ++i)
    for (int j = 0; j < NT; ++j)
      for (int s = 0; s < 2; ++s)
        detail::host_mma_m8n8k4<LA, LB>(acc.v + (i * NT + j) * 8, all, stride, 4 * i + 2 * s, 4 * MT + 4 * j + 2 * s, lane);
#endif
}

// The paper's two macro-MMA shapes.
template <Layout LA, Layout LB>
PF_DEVICE void mma_16x16x8(AccTile884<1, 1>& acc, const FragA884 (&a)[1], const FragB884 (&b)[1]) {
  mma_884<LA, LB, 1, 1>(acc, a, b);
}
template <Layout LA, Layout LB>
PF_DEVICE void mma_32x32x8(AccTile884<2, 2>& acc, const FragA884 (&a)[2], const FragB884 (&b)[2]) {
  mma_884<LA, LB, 2, 2>(acc, a, b);
}

// One macro-MMA of a contracted schedule (paper §IV-D): 16x16 piece (i, j) of the warp's
// accumulator tile += a * b (16x16x8). Called with constant i, j in unrolled loops.
template <Layout LA, Layout LB, int MT, int NT>
PF_DEVICE void mma_fragment_884(AccTile884<MT, NT>& acc, int i, int j, const FragA884& a, const FragB884& b) {
  AccTile884<1, 1> one;
  float* c = acc.frag(i, j);
  for (int e = 0; e < 8; ++e) one.v[e] = c[e];
  const FragA884 as[1] = {a};
  const FragB884 bs[1] = {b};
  mma_884<LA, LB, 1, 1>(one, as, bs);
  for (int e = 0; e < 8; ++e) c[e] = one.v[e];
}

// One 32x32x8 macro-MMA: the 2x2 pieces (2i.., 2j..) += A pieces 2i, 2i+1 x B pieces 2j, 2j+1.
template <Layout LA, Layout LB, int MT, int NT, int FA, int FB>
PF_DEVICE void mma_macro_32x32x8(AccTile884<MT, NT>& acc, int i, int j, const FragA884 (&a)[FA], const FragB884 (&b)[FB]) {
  for (int di = 0; di < 2; ++di)
    for (int dj = 0; dj < 2; ++dj) mma_fragment_884<LA, LB>(acc, 2 * i + di, 2 * j + dj, a[2 * i + di], b[2 * j + dj]);
}

// Macro A fragments of rows m0 + 16*i.., k0..k0+7 from a swizzled tile
// (L == row: tile [m][k], COLS = tile K; L == col: tile [k][m], COLS = tile M).
template <Layout L, Swizzle S, int COLS, int MT>
PF_DEVICE void load_frag_a884(FragA884 (&a)[MT], const void* tile, int m0, int k0) {
  const int lane = static_cast<int>(lane_id());
  const int q = (lane >> 2) & 3, hi = lane >> 4, idx = (lane & 3) + 4 * hi;
PF_UNROLL
  for (int i = 0; i < MT; ++i) {
    const int mrow = m0 + 16 * i + 8 * (q & 1);
    if constexpr (L == Layout::row) {
      const Chunk16 v = lds128(tile_address<S, COLS>(tile, mrow + idx, k0));
      for (int r = 0; r < 4; ++r) a[i].x[r] = v.x[r];
    } else {
      lds64(tile_address<S, COLS>(tile, k0 + (lane & 3), mrow + 4 * hi), a[i].x[0], a[i].x[1]);
      lds64(tile_address<S, COLS>(tile, k0 + 4 + (lane & 3), mrow + 4 * hi), a[i].x[2], a[i].x[3]);
    }
  }
}

// Macro B fragments of k0..k0+7, columns n0 + 16*j..
// (L == col: tile [n][k], COLS = tile K; L == row: tile [k][n], COLS = tile N).
template <Layout L, Swizzle S, int COLS, int NT>
PF_DEVICE void load_frag_b884(FragB884 (&b)[NT], const void* tile, int k0, int n0) {
  const int lane = static_cast<int>(lane_id());
  const int q = (lane >> 2) & 3, hi = lane >> 4, idx = (lane & 3) + 4 * hi;
PF_UNROLL
  for (int j = 0; j < NT; ++j) {
    const int ncol = n0 + 16 * j + 8 * (q >> 1);
    if constexpr (L == Layout::col) {
      const Chunk16 v = lds128(tile_address<S, COLS>(tile, ncol + idx, k0));
      for (int r = 0; r < 4; ++r) b[j].x[r] = v.x[r];
    } else {
      lds64(tile_address<S, COLS>(tile, k0 + (lane & 3), ncol + 4 * hi), b[j].x[0], b[j].x[1]);
      lds64(tile_address<S, COLS>(tile, k0 + 4 + (lane & 3), ncol + 4 * hi), b[j].x[2], b[j].x[3]);
    }
  }
}

}  // namespace pf
